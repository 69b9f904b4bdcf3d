// A withdrawal from the perps exchange (chain 1337; docs/perps.md; issue 38, point 6) by a viem
// client doing exactly what the public SDK's own withdrawal flow does, against the local exchange.
//
// Why not the SDK's own `execute`: @relayprotocol/relay-sdk 7.0.3 executes a 1337 quote by
// converting its deposit step into a signature step (`utils/<exchange>.js`,
// prepare<Exchange>Steps) whose signing domain name is the real exchange's brand, written in the
// code, and by posting the signed action with its own axios to the real exchange's public host,
// also written in the code (post<Exchange>Signature, called from
// `utils/executeSteps/signatureStep.js` when the chain is 1337). Neither can be configured: no
// client option, chain field or argument reaches them. So `execute` cannot be pointed at the
// local exchange (the first case below checks that this is still so), and this client repeats
// its steps with viem, in the SDK's order and with the SDK's bodies:
//
//  1. The wallet's active chain id (the SDK asks the wallet: `getChainId`) replaces the authorize
//     step's `sign.domain.chainId` and `post.body.signatureChainId` (default 1).
//  2. authorize: the wallet signs `sign` (EIP-712: domain, types, primaryType, value) with
//     `signTypedData`; the client POSTs `{endpoint}?signature=0x…` with `post.body`, `referrer`
//     added when absent (the SDK's `client.source`) and the `relay-sdk-version` header.
//  3. deposit: the transaction step becomes a signature over the sendAsset action: domain
//     `<Exchange>SignTransaction` v1 on the wallet's chain id with a zero verifying contract
//     (the SDK writes the brand; here it is the word the step's `eip712PrimaryType` carries,
//     `<Exchange>Transaction:SendAsset`), types the step's `eip712Types` and EIP712Domain,
//     message `action.parameters` with `type` and `signatureChainId` (0x and the chain id in
//     hex). The signature, split into `{r, s, v}` (viem's parseSignature, v a number), is POSTed
//     with `nonce` (the action's) and the action as signed to the exchange's `/exchange`; the
//     answer must be HTTP 200 with `status: "ok"`.
//  4. The converted step's check, `/intents/status?requestId=…`, is polled until success: the
//     SDK rewrites that legacy path to `/intents/status/v3` and reads `pending`, `submitted`,
//     `success` (with txHashes) and `failure`; the legacy path as written must answer success
//     too (issue 38, point 5).
//
// e2e/perps_test.go starts the engine with the local exchange, runs this file with the
// environment below and checks the balances against the result written to INTENTD_RESULT_DIR.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { createWalletClient, http, parseSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run this file through e2e/perps_test.go (go test -run TestViemClientWithdrawsFromThePerpsExchange ./e2e/)`)
  return v
}
const API = env('INTENTD_API_URL')
const EXCHANGE = env('INTENTD_EXCHANGE_URL')
const RPC = env('INTENTD_RPC_31337')
const USDC = env('INTENTD_USDC')
const AMOUNT = env('INTENTD_PERPS_AMOUNT')
const RECIPIENT = env('INTENTD_PERPS_RECIPIENT')
const RESULT_DIR = env('INTENTD_RESULT_DIR')
// The wallet: a devnet test account, funded with perps USDC on the local exchange.
const account = privateKeyToAccount(env('INTENTD_PERPS_KEY'))

const PERPS_CHAIN = 1337
const PERPS_USDC = '0x00000000000000000000000000000000'
const DESTINATION_CHAIN = 31337
// What the SDK's client would add as referrer (createClient's `source`) and send as its version.
const SOURCE = 'perps.e2e.intentd.local'
const here = dirname(fileURLToPath(import.meta.url))
const SDK_DIR = join(here, 'node_modules', '@relayprotocol', 'relay-sdk')
const SDK_VERSION = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')).version

// The wallet is on the devnet's 31337, its active chain: the chain id both signatures carry.
const devnet31337 = {
  id: DESTINATION_CHAIN, name: 'devnet 31337', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [RPC] } },
}
const wallet = createWalletClient({ account, chain: devnet31337, transport: http(RPC) })

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
const EIP712_DOMAIN = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

async function postJSON(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  let json
  try { json = JSON.parse(text) } catch { json = text }
  return { status: res.status, body: json }
}

async function getJSON(url) {
  const res = await fetch(url, { headers: { 'relay-sdk-version': SDK_VERSION } })
  return { status: res.status, body: await res.json() }
}

function withdrawalQuote(extra) {
  return postJSON(`${API}/quote/v2`, {
    user: account.address, recipient: RECIPIENT, originChainId: PERPS_CHAIN, destinationChainId: DESTINATION_CHAIN,
    originCurrency: PERPS_USDC, destinationCurrency: USDC, amount: AMOUNT, tradeType: 'EXACT_INPUT', ...extra,
  })
}

// prepareSteps is the SDK's prepare<Exchange>Steps: the signature step signs on the wallet's
// chain, the transaction step becomes the signature of its sendAsset action.
function prepareSteps(steps, chainId) {
  return steps.map((step) => {
    if (step.kind === 'signature') {
      return {
        ...step,
        items: step.items.map((item) => ({
          ...item,
          data: {
            ...item.data,
            sign: { ...item.data.sign, domain: { ...item.data.sign.domain, chainId } },
            ...(item.data.post && { post: { ...item.data.post, body: { ...item.data.post.body, signatureChainId: chainId } } }),
          },
        })),
      }
    }
    if (step.kind === 'transaction') {
      const data = step.items[0].data
      const primaryType = data.eip712PrimaryType
      // `<Exchange>Transaction:SendAsset` names the exchange's word; the SDK writes its brand.
      const word = /^(.+)Transaction:SendAsset$/.exec(primaryType)?.[1]
      assert.ok(word, `eip712PrimaryType ${primaryType} is not <Exchange>Transaction:SendAsset`)
      return {
        id: 'exchange-signature', action: 'Confirm transaction in your wallet', description: 'Sign a message to confirm the transaction',
        kind: 'signature',
        items: [{
          status: 'incomplete',
          data: {
            sign: {
              signatureKind: 'eip712',
              domain: { name: `${word}SignTransaction`, version: '1', chainId, verifyingContract: ZERO_ADDRESS },
              types: { ...data.eip712Types, EIP712Domain: EIP712_DOMAIN },
              primaryType,
              value: { ...data.action.parameters, type: data.action.type, signatureChainId: `0x${chainId.toString(16)}` },
            },
          },
          check: { endpoint: `/intents/status?requestId=${step.requestId}`, method: 'GET' },
        }],
        requestId: step.requestId,
        depositAddress: step.depositAddress,
      }
    }
    return step
  })
}

// sign is the SDK's viem adapter's handleSignMessageStep for eip712.
function sign(item) {
  const s = item.data.sign
  assert.equal(s.signatureKind, 'eip712')
  return wallet.signTypedData({ account, domain: s.domain, types: s.types, primaryType: s.primaryType, message: s.value })
}

// postToExchange is the SDK's post<Exchange>Signature, at the local exchange.
async function postToExchange(signature, item) {
  const { r, s, v } = parseSignature(signature)
  const action = item.data.sign.value
  const nonce = action.nonce ?? action.time
  const res = await postJSON(`${EXCHANGE}/exchange`, { signature: { r, s, v: Number(v ?? 0n) }, nonce, action })
  assert.ok(res.status === 200 && res.body?.status === 'ok', `the exchange refused the sendAsset: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

// check polls an item's check as the SDK's signature step does (the legacy path rewritten to
// v3) until success, and answers the last answer and every status seen.
async function check(item) {
  let endpoint = item.check.endpoint
  if (endpoint.includes('/intents/status') && !endpoint.includes('/v3')) endpoint = endpoint.replace('/intents/status', '/intents/status/v3')
  const seen = []
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const res = await getJSON(`${API}${endpoint}`)
    assert.ok(res.status < 500, `${endpoint}: ${res.status}`)
    assert.ok(res.status < 400, `${endpoint}: ${res.status} ${JSON.stringify(res.body)}`)
    const status = res.body?.status
    if (status && seen.at(-1) !== status) seen.push(status)
    if (status === 'success' && res.body.txHashes) return { last: res.body, seen }
    assert.notEqual(status, 'failure', `the request failed: ${JSON.stringify(res.body)}`)
    assert.notEqual(status, 'refund', `the request was refunded: ${JSON.stringify(res.body)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`${endpoint} did not reach success (seen ${seen.join(' → ')})`)
}

describe('a withdrawal from the perps exchange (1337) to USDC on 31337, a viem client doing what the SDK does', () => {
  it("the SDK's exchange endpoint and signing domain are written in its code, not configurable", () => {
    // The SDK's perps helper (utils/<exchange>.js): the module of utils/ that names the domain.
    const utils = join(SDK_DIR, '_esm', 'src', 'utils')
    const helpers = readdirSync(utils).filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(utils, f), 'utf8')).filter((src) => /SignTransaction'/.test(src))
    assert.equal(helpers.length, 1, 'one module of the SDK signs the exchange action')
    const src = helpers[0]
    assert.match(src, /axios\.post\('https:\/\/[^']+\/exchange'/, 'the SDK posts to a fixed https host: if this changed, drive execute itself')
    assert.match(src, /name: '[A-Za-z]+SignTransaction'/, 'the SDK names the signing domain itself')
  })

  it('a withdrawal quote without protocolVersion is refused: 400 INVALID_INPUT', async () => {
    const { status, body } = await withdrawalQuote({})
    assert.equal(status, 400, JSON.stringify(body))
    assert.equal(body.errorCode, 'INVALID_INPUT')
    assert.match(body.message, /protocolVersion/)
  })

  it('authorize, then the signed sendAsset to the exchange, then the check to success', async () => {
    const q = await withdrawalQuote({ protocolVersion: 'v2' })
    assert.equal(q.status, 200, JSON.stringify(q.body))
    const quote = q.body
    assert.deepEqual(quote.steps.map((s) => [s.id, s.kind]), [['authorize', 'signature'], ['deposit', 'transaction']])
    const requestId = quote.steps[0].requestId
    assert.ok(requestId)

    const chainId = await wallet.getChainId()
    assert.equal(chainId, DESTINATION_CHAIN)
    const steps = prepareSteps(quote.steps, chainId)

    // authorize: sign, POST {endpoint}?signature= with the body (referrer added).
    const auth = steps[0].items[0]
    assert.equal(auth.data.sign.domain.chainId, chainId)
    assert.equal(auth.data.post.body.signatureChainId, chainId)
    const authSig = await sign(auth)
    const post = auth.data.post
    const body = { ...post.body }
    if (!body.referrer) body.referrer = SOURCE
    assert.equal(post.method, 'POST')
    const url = new URL(`${API}${post.endpoint}`)
    url.searchParams.set('signature', authSig)
    const bound = await postJSON(url.href, body, { 'relay-sdk-version': SDK_VERSION })
    assert.equal(bound.status, 200, JSON.stringify(bound.body))
    assert.equal(bound.body.requestId, requestId)
    assert.equal(bound.body.nonce, post.body.nonce)
    assert.equal(bound.body.signatureChainId, chainId)
    assert.ok(!auth.check, 'the authorize item has no check: the SDK would poll it to success before the deposit is sent')

    // deposit, as the SDK converted it: the sendAsset signed on the wallet's chain, to /exchange.
    const dep = steps[1].items[0]
    const action = dep.data.sign.value
    assert.equal(action.type, 'sendAsset')
    assert.equal(action.signatureChainId, `0x${chainId.toString(16)}`)
    assert.equal(action.nonce, post.body.nonce, 'the transfer carries the nonce bound by authorize')
    const depSig = await sign(dep)
    await postToExchange(depSig, dep)

    // The check: the SDK's (v3) to success, then the legacy path as the step writes it.
    assert.equal(dep.check.endpoint, `/intents/status?requestId=${requestId}`)
    const { last, seen } = await check(dep)
    assert.equal(last.inTxHashes?.length, 1, JSON.stringify(last))
    assert.equal(last.txHashes?.length, 1, JSON.stringify(last))
    const v1 = await getJSON(`${API}${dep.check.endpoint}`)
    assert.equal(v1.status, 200, JSON.stringify(v1.body))
    assert.equal(v1.body.status, 'success', JSON.stringify(v1.body))
    assert.deepEqual(v1.body.inTxHashes, last.inTxHashes)

    writeFileSync(join(RESULT_DIR, 'perps.json'), JSON.stringify({
      requestId, user: account.address, recipient: RECIPIENT, nonce: action.nonce, amountSent: action.amount,
      destination: action.destination, currencyIn: quote.details.currencyIn.amount, currencyOut: quote.details.currencyOut.amount,
      inTxHashes: last.inTxHashes, txHashes: last.txHashes, seen,
    }))
  })
})
