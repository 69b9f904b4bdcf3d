// Gasless execution (docs/gasless.md; issue 37, point 6) from a viem client: a wallet holding
// USDC on 31337 and no ETH at all bridges it to 31338 through POST /execute. It quotes with
// POST /quote/v2, signs an EIP-7702 authorization of its account for the devnet's BatchExecutor
// and the quote's step items (approve, deposit) as one EIP-712 batch, POSTs the execute call
// with an integrator's key (the integrator's sponsorship balance pays the relayed gas) and polls
// GET /intents/status/v3 to success. A batch signed by another key is refused by the call's
// simulation (400 INVALID_SIGNATURE). The last case runs the same flow through the public SDK's
// own gasless helper, executeGaslessBatch, with an executor config for our BatchExecutor.
// e2e/gasless_test.go starts the engine, funds the wallets with USDC, runs this file with the
// environment below and checks the chain against the results written to INTENTD_RESULT_DIR.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import http_ from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { LogLevel, createClient, executeGaslessBatch, getClient } from '@relayprotocol/relay-sdk'
import { configureDynamicChains } from '@relayprotocol/relay-sdk/chain-utils'
import { createPublicClient, createWalletClient, decodeAbiParameters, encodeFunctionData, http, isHex, size } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run this file through e2e/gasless_test.go (go test -run TestViemClientExecutesGaslessly ./e2e/)`)
  return v
}
const API = env('INTENTD_API_URL')
const API_KEY = env('INTENTD_API_KEY')
const RPC = env('INTENTD_RPC_31337')
const EXECUTOR = env('INTENTD_EXECUTOR')
const USDC = env('INTENTD_USDC')
const AMOUNT = env('INTENTD_GASLESS_AMOUNT')
const RESULT_DIR = env('INTENTD_RESULT_DIR')
// The two users: fresh keys holding only USDC (the Go side funded them before running this).
const USER = privateKeyToAccount(env('INTENTD_GASLESS_KEY'))
const RECIPIENT = env('INTENTD_GASLESS_RECIPIENT')
const SDK_USER = privateKeyToAccount(env('INTENTD_GASLESS_SDK_KEY'))
const SDK_RECIPIENT = env('INTENTD_GASLESS_SDK_RECIPIENT')

const ORIGIN = 31337
const here = dirname(fileURLToPath(import.meta.url))
// The delegate's ABI as contracts/build.sh compiled it.
const EXECUTOR_ABI = JSON.parse(readFileSync(join(here, '..', 'contracts', 'build', 'BatchExecutor.abi'), 'utf8'))
const chain = {
  id: ORIGIN, name: 'devnet 31337', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [RPC] } },
}
const reader = createPublicClient({ chain, transport: http(RPC) })

// BatchExecutor's EIP-712 batch (contracts/src/BatchExecutor.sol, chains/evm/eip7702 Digest):
// the domain's verifyingContract is the user's own account (the delegate runs as it).
const EXECUTE_TYPES = {
  Execute: [
    { name: 'calls', type: 'Call[]' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  Call: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
}
const batchDomain = (chainId, account) => ({ name: 'BatchExecutor', version: '1', chainId, verifyingContract: account })

async function post(path, body) {
  const res = await fetch(`${API}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': API_KEY }, body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

// quote asks POST /quote/v2 for USDC 31337 → USDC 31338 of AMOUNT, EXACT_INPUT.
async function quote(user, recipient) {
  const { status, body } = await post('/quote/v2', {
    user, recipient, originChainId: ORIGIN, destinationChainId: 31338,
    originCurrency: USDC, destinationCurrency: USDC, amount: AMOUNT, tradeType: 'EXACT_INPUT',
  })
  assert.equal(status, 200, JSON.stringify(body))
  return body
}

// callsOf is the batch: every step item's {to, value, data}, in order (approve, deposit).
function callsOf(q) {
  const calls = q.steps.flatMap((s) => s.items.map((it) => ({ to: it.data.to, value: BigInt(it.data.value ?? '0'), data: it.data.data })))
  assert.deepEqual(q.steps.map((s) => s.id), ['approve', 'deposit'])
  return calls
}

// executeBody signs the authorization with the user's key and the batch with signer's, and
// builds POST /execute's body.
async function executeBody(q, user, signer) {
  const requestId = q.steps.find((s) => s.requestId)?.requestId
  assert.ok(requestId, 'the quote names its request')
  const nonce = await reader.getTransactionCount({ address: user.address })
  const auth = await user.signAuthorization({ contractAddress: EXECUTOR, chainId: ORIGIN, nonce })
  const calls = callsOf(q)
  const batchNonce = BigInt(Date.now())
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
  const signature = await signer.signTypedData({
    domain: batchDomain(ORIGIN, user.address), types: EXECUTE_TYPES, primaryType: 'Execute',
    message: { calls, nonce: batchNonce, deadline },
  })
  const data = encodeFunctionData({ abi: EXECUTOR_ABI, functionName: 'execute', args: [calls, batchNonce, deadline, signature] })
  assert.ok(isHex(auth.r) && isHex(auth.s) && size(auth.r) === 32 && size(auth.s) === 32)
  return {
    requestId,
    body: {
      executionKind: 'rawCalls', requestId,
      data: {
        chainId: ORIGIN, to: user.address, data, value: '0',
        authorizationList: [{ chainId: auth.chainId, address: auth.address, nonce: auth.nonce, yParity: auth.yParity, r: auth.r, s: auth.s }],
      },
      executionOptions: { subsidizeFees: true },
    },
  }
}

// follow polls the request's status until it ends; it returns the last status and every one seen.
async function follow(requestId, ms = 150_000) {
  const seen = []
  const end = Date.now() + ms
  while (Date.now() < end) {
    const res = await fetch(`${API}/intents/status/v3?requestId=${requestId}`)
    if (res.status === 200) {
      const st = await res.json()
      if (seen.at(-1) !== st.status) seen.push(st.status)
      if (['success', 'failure', 'refund'].includes(st.status)) return { st, seen }
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`request ${requestId} did not end in ${ms} ms; seen ${seen}`)
}

// forward sends one of the SDK's API calls to intentd with the integrator's key, as an app's
// backend would: the SDK sends its x-api-key only to Relay's own hosts (getApiKeyHeader checks
// the URL against api.relay.link and api.testnets.relay.link), never to another baseApiUrl.
async function forward(req, res) {
  const chunks = []
  for await (const c of req) chunks.push(c)
  const headers = { 'x-api-key': API_KEY }
  for (const h of ['content-type', 'relay-sdk-version']) if (req.headers[h]) headers[h] = req.headers[h]
  const answer = await fetch(API + req.url, { method: req.method, headers,
    body: ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks) })
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') || 'application/json' })
  res.end(Buffer.from(await answer.arrayBuffer()))
}

describe('gasless execution through POST /execute from a wallet without ETH', { timeout: 240_000 }, () => {
  let q, server, backend
  after(() => server?.close())
  before(async () => {
    server = http_.createServer((req, res) => forward(req, res).catch((err) => { res.writeHead(502); res.end(String(err)) }))
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    backend = `http://127.0.0.1:${server.address().port}`
    for (const a of [USER, SDK_USER]) {
      assert.equal(await reader.getBalance({ address: a.address }), 0n, `${a.address} must hold no ETH`)
    }
    q = await quote(USER.address, RECIPIENT)
  })

  it('refuses a batch signed by another key: 400 INVALID_SIGNATURE, the revert decoded', async () => {
    const other = privateKeyToAccount(generatePrivateKey())
    const { requestId, body } = await executeBody(q, USER, other)
    const res = await post('/execute', body)
    assert.equal(res.status, 400, JSON.stringify(res.body))
    assert.equal(res.body.error, 'INVALID_SIGNATURE')
    assert.equal(res.body.requestId, requestId)
    assert.equal(res.body.details?.revert?.name, 'InvalidSignature')
    const st = await (await fetch(`${API}/intents/status/v3?requestId=${requestId}`)).json()
    assert.equal(st.status, 'waiting', 'a refused execution leaves the request waiting')
  })

  it('relays the user-signed approve + deposit batch to success; the user pays no gas', async () => {
    const { requestId, body } = await executeBody(q, USER, USER)
    const res = await post('/execute', body)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(res.body, { message: 'Transaction submitted', requestId })
    const { st, seen } = await follow(requestId)
    assert.equal(st.status, 'success', `ended ${JSON.stringify(st)} after ${seen}`)
    assert.equal(await reader.getBalance({ address: USER.address }), 0n)
    // The account is delegated to the executor now (EIP-7702: 0xef0100 ‖ address).
    const code = await reader.getCode({ address: USER.address })
    assert.equal(code?.toLowerCase(), `0xef0100${EXECUTOR.slice(2).toLowerCase()}`)
    writeFileSync(join(RESULT_DIR, 'viem.json'), JSON.stringify({
      requestId, user: USER.address, currencyOut: q.details.currencyOut.amount, seen,
    }))
  })

  it("the public SDK's executeGaslessBatch, with an executor config for our BatchExecutor", async () => {
    // The SDK reaches the API through the app's backend (forward); executeGaslessBatch refuses
    // to run without an apiKey configured, though it never sends it to a host but Relay's.
    createClient({
      baseApiUrl: backend, apiKey: API_KEY,
      pollingInterval: 250, maxPollingAttemptsBeforeTimeout: 480, logLevel: LogLevel.None,
    })
    await configureDynamicChains()
    const sq = await getClient().actions.getQuote({
      chainId: ORIGIN, toChainId: 31338, currency: USDC, toCurrency: USDC, amount: AMOUNT,
      tradeType: 'EXACT_INPUT', user: SDK_USER.address, recipient: SDK_RECIPIENT,
    })
    assert.deepEqual(sq.steps.map((s) => s.id), ['approve', 'deposit'])
    // The SDK defaults to Uniswap's Calibur; its BatchExecutorConfig lets an app name another
    // delegate. It signs buildSignMessage's message under buildSignDomain's domain and hands
    // encodeExecute the signature wrapped Calibur's way, abi.encode(signature, hookData): ours
    // takes the bare 65-byte signature, so encodeExecute unwraps it.
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
    const executor = {
      address: EXECUTOR, abi: EXECUTOR_ABI, eip712Types: EXECUTE_TYPES, eip712PrimaryType: 'Execute',
      buildSignDomain: (chainId, account) => batchDomain(BigInt(chainId), account),
      buildSignMessage: (calls, nonce) => ({ calls, nonce, deadline }),
      encodeExecute(message, wrapped) {
        const [signature] = decodeAbiParameters([{ type: 'bytes' }, { type: 'bytes' }], wrapped)
        return encodeFunctionData({ abi: EXECUTOR_ABI, functionName: 'execute', args: [message.calls, message.nonce, message.deadline, signature] })
      },
      // Nonces are unordered in BatchExecutor: any unused one will do.
      getNonce: async () => BigInt(Date.now()),
    }
    const wallet = createWalletClient({ account: SDK_USER, chain, transport: http(RPC) })
    const progress = []
    const { requestId } = await executeGaslessBatch({
      quote: sq, walletClient: wallet, executor, subsidizeFees: true,
      onProgress: (p) => progress.push(p.status),
    })
    assert.equal(requestId, sq.steps[0].requestId)
    assert.deepEqual(progress, ['signing_authorization', 'signing_batch', 'submitting', 'polling', 'success'])
    assert.equal(await reader.getBalance({ address: SDK_USER.address }), 0n)
    writeFileSync(join(RESULT_DIR, 'sdk.json'), JSON.stringify({
      requestId, user: SDK_USER.address, currencyOut: sq.details.currencyOut.amount, seen: progress,
    }))
  })
})
