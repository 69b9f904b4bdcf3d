// A Solana wallet written with @solana/kit (pinned in package.json), as a web client would be:
// it asks the API for a SOL → ETH quote (originChainId 792703809), compiles the quote's Solana
// `deposit` step itself (steps[].items[].data.instructions, data hex without 0x, and
// addressLookupTableAddresses) into a v0 transaction with the user as fee payer and a recent
// blockhash, signs it with a funded test keypair of the local chain, sends it, and polls
// GET /intents/status/v3 to `success`. The second case has the public SDK execute the same
// route with its Solana wallet adapter (@relayprotocol/relay-svm-wallet-adapter over web3.js):
// see e2e/README.md for what of it works against the local chain. e2e/solana_test.go
// (TestSolanaKitClient) starts the engine with the local Solana chain, passes the environment
// below and checks each EVM recipient's balance against the quote written to INTENTD_RESULT_DIR.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { LogLevel, createClient, getClient } from '@relayprotocol/relay-sdk'
import { configureDynamicChains } from '@relayprotocol/relay-sdk/chain-utils'
import { adaptSolanaWallet } from '@relayprotocol/relay-svm-wallet-adapter'
import { Connection, Keypair } from '@solana/web3.js'

import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  fetchAddressesForLookupTables,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run this file through e2e/solana_test.go (TestSolanaKitClient)`)
  return v
}
const API = env('INTENTD_API_URL')
const SOLANA_RPC = env('INTENTD_SOLANA_RPC')
// A funded test keypair of the local chain (devnet/svm/keys.go: the test mnemonic's key at
// m/44'/501'/i'/0'), its 64-byte secret in base58: public, local only.
const SECRET = env('INTENTD_SOLANA_SECRET')
const SDK_SECRET = env('INTENTD_SOLANA_SDK_SECRET')
const RECIPIENT = env('INTENTD_EVM_RECIPIENT')
const SDK_RECIPIENT = env('INTENTD_EVM_SDK_RECIPIENT')
// Each case writes {requestId, signature, currencyOut} to <dir>/<case>.json for the Go side.
const RESULT_DIR = env('INTENTD_RESULT_DIR')
const SOLANA_CHAIN_ID = 792703809
const SOL = '11111111111111111111111111111111' // the System Program's id names SOL
const ETH = '0x0000000000000000000000000000000000000000'

const hexToBytes = (hex) => {
  assert.match(hex, /^([0-9a-f]{2})*$/i, `instruction data ${hex} is hex without 0x`)
  return Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16))
}

// toKitInstruction maps one of the quote's instructions ({programId, keys: [{pubkey, isSigner,
// isWritable}], data}) to kit's shape; the user's signer rides on its own account so that
// signTransactionMessageWithSigners finds it.
function toKitInstruction(ix, user) {
  return {
    programAddress: address(ix.programId),
    accounts: ix.keys.map((k) => {
      const role = k.isSigner
        ? (k.isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER)
        : (k.isWritable ? AccountRole.WRITABLE : AccountRole.READONLY)
      if (k.isSigner) {
        assert.equal(k.pubkey, user.address, 'the only signer an item asks for is the user')
        return { address: address(k.pubkey), role, signer: user }
      }
      return { address: address(k.pubkey), role }
    }),
    data: hexToBytes(ix.data),
  }
}

async function status(requestId) {
  const res = await fetch(`${API}/intents/status/v3?requestId=${requestId}`)
  assert.equal(res.status, 200)
  return res.json()
}

it('SOL → ETH: a @solana/kit wallet compiles, signs and sends the quote\'s deposit; the request reaches success', async () => {
  const rpc = createSolanaRpc(SOLANA_RPC)
  const user = await createKeyPairSignerFromBytes(getBase58Encoder().encode(SECRET))

  const res = await fetch(`${API}/quote/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user: user.address, recipient: RECIPIENT, originChainId: SOLANA_CHAIN_ID, destinationChainId: 31337,
      originCurrency: SOL, destinationCurrency: ETH, amount: '1000000000' /* 1 SOL */, tradeType: 'EXACT_INPUT',
    }),
  })
  const quote = await res.json()
  assert.equal(res.status, 200, JSON.stringify(quote))
  assert.deepEqual(quote.steps.map((s) => s.id), ['deposit'], 'one deposit step')
  const step = quote.steps[0]
  assert.equal(step.kind, 'transaction')
  assert.equal(step.items.length, 1)
  const { instructions, addressLookupTableAddresses } = step.items[0].data
  assert.ok(Array.isArray(instructions) && instructions.length > 0, 'the item carries its instructions')
  assert.ok(Array.isArray(addressLookupTableAddresses), 'the item lists its lookup tables (empty when none)')
  const requestId = step.requestId ?? quote.requestId
  assert.ok(requestId, 'the step names its request')

  // The user compiles the transaction itself: v0, fee payer the user, a recent blockhash, the
  // quote's lookup tables (none today) resolved from the chain.
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
  const tables = addressLookupTableAddresses.length > 0
    ? await fetchAddressesForLookupTables(addressLookupTableAddresses.map(address), rpc)
    : {}
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(user, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions.map((ix) => toKitInstruction(ix, user)), m),
    (m) => compressTransactionMessageUsingAddressLookupTables(m, tables),
    (m) => signTransactionMessageWithSigners(m),
  )
  const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), {
    encoding: 'base64', preflightCommitment: 'confirmed',
  }).send()
  assert.equal(signature, getSignatureFromTransaction(tx))

  let sig = null
  for (let i = 0; i < 600 && sig?.confirmationStatus !== 'confirmed' && sig?.confirmationStatus !== 'finalized'; i++) {
    await new Promise((r) => setTimeout(r, 50))
    ;[sig] = (await rpc.getSignatureStatuses([signature]).send()).value
  }
  assert.ok(sig !== null && sig.err === null, `the deposit ${signature} is confirmed without error`)

  // The app follows the request as an integrator's does: the status endpoint, to the end.
  const end = Date.now() + 90_000
  let st
  for (;;) {
    st = await status(requestId)
    if (['success', 'failure', 'refund'].includes(st.status)) break
    if (Date.now() > end) assert.fail(`request ${requestId} still ${st.status} after 90 s`)
    await new Promise((r) => setTimeout(r, 250))
  }
  assert.equal(st.status, 'success', JSON.stringify(st))
  assert.deepEqual(st.inTxHashes, [signature], 'the deposit, base58 as the chain writes it')
  assert.equal(st.txHashes.length, 1, 'one fill')
  writeFileSync(join(RESULT_DIR, 'kit.json'), JSON.stringify({ requestId, signature, currencyOut: quote.details.currencyOut.amount }))
})

it('SOL → ETH: the public SDK executes the quote with @relayprotocol/relay-svm-wallet-adapter', async () => {
  const kp = Keypair.fromSecretKey(getBase58Encoder().encode(SDK_SECRET))
  const user = kp.publicKey.toBase58()
  const connection = new Connection(SOLANA_RPC, 'confirmed')
  // The adapter compiles the step (web3.js, v0, the user the payer) and hands it here to sign
  // and send, as a browser wallet's signAndSendTransaction would.
  const wallet = adaptSolanaWallet(user, SOLANA_CHAIN_ID, connection, async (tx) => {
    tx.sign([kp])
    return { signature: await connection.sendTransaction(tx, { preflightCommitment: 'confirmed' }) }
  })
  createClient({ baseApiUrl: API, pollingInterval: 250, maxPollingAttemptsBeforeTimeout: 240, logLevel: LogLevel.None })
  await configureDynamicChains()
  const quote = await getClient().actions.getQuote({
    chainId: SOLANA_CHAIN_ID, toChainId: 31337, currency: SOL, toCurrency: ETH, amount: '1000000000',
    tradeType: 'EXACT_INPUT', wallet, user, recipient: SDK_RECIPIENT,
  })
  assert.deepEqual(quote.steps.map((s) => s.id), ['deposit'])
  const { data } = await getClient().actions.execute({ quote, wallet, onProgress: () => {} })
  const item = data.steps[0].items[0]
  assert.equal(item.status, 'complete')
  assert.equal(item.checkStatus, 'success', 'the SDK saw the request succeed')
  const requestId = quote.steps[0].requestId
  const st = await status(requestId)
  assert.equal(st.status, 'success')
  writeFileSync(join(RESULT_DIR, 'sdk.json'), JSON.stringify({ requestId, signature: st.inTxHashes[0], currencyOut: quote.details.currencyOut.amount }))
})
