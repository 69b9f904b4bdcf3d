// A Node client of the websocket stream (the `ws` package), as an integrator's backend would
// follow a request instead of polling: it connects to GET /ws, subscribes to the request from
// its open handler (before the server's ready message, as the public SDK does), sends the
// deposit from a viem wallet, and follows the request to success. e2e/sdk_test.go runs it with
// the environment below.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'

import WebSocket from 'ws'
import { createWalletClient, defineChain, http, parseEther, zeroAddress } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run this suite through e2e/sdk_test.go (make test)`)
  return v
}
const API = env('INTENTD_API_URL')
const WS = env('INTENTD_WS_URL')
const RPC = env('INTENTD_RPC_31337')
const acct = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 7 })
const chain = defineChain({ id: 31337, name: 'devnet 31337', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [RPC] } } })

async function post(path, body) {
  const res = await fetch(API + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = await res.json()
  assert.ok(res.status === 200 || res.status === 202, `${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

// follow opens the stream and subscribes to requestId from the open handler; it collects every
// message and resolves the list once the request reaches one of the terminal statuses.
function follow(requestId) {
  const ws = new WebSocket(WS)
  const messages = []
  let resolve, reject
  const done = new Promise((res, rej) => { resolve = res; reject = rej })
  ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', event: 'request.status.updated', filters: { id: requestId } })))
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString())
    messages.push(msg)
    if (msg.event === 'request.status.updated' && ['success', 'refund'].includes(msg.data.status)) {
      ws.close()
      resolve(messages)
    }
  })
  ws.on('error', reject)
  ws.on('close', (code) => reject(new Error(`the stream closed (${code}) before the request ended`)))
  return { done, messages }
}

describe('the websocket stream with the ws package', () => {
  it('follows an ETH bridge 31337 -> 31338 to success', async () => {
    const quote = await post('/quote/v2', { user: acct.address, originChainId: 31337, destinationChainId: 31338,
      originCurrency: zeroAddress, destinationCurrency: zeroAddress, amount: parseEther('0.2').toString(), tradeType: 'EXACT_INPUT' })
    const requestId = quote.steps[0].requestId
    const stream = follow(requestId)

    const wallet = createWalletClient({ account: acct, chain, transport: http(RPC) })
    const item = quote.steps.find((s) => s.id === 'deposit').items[0].data
    const hash = await wallet.sendTransaction({ to: item.to, data: item.data, value: BigInt(item.value) })
    await post('/transactions/index', { chainId: '31337', txHash: hash })

    let timer
    const messages = await Promise.race([stream.done, new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`no success within 60 s: ${JSON.stringify(stream.messages)}`)), 60_000)
    })])
    clearTimeout(timer)

    // The protocol: ready, then the subscribe's answer, then events only.
    assert.equal(messages[0].type, 'connection')
    assert.equal(messages[0].status, 'ready')
    assert.ok(messages[0].data.id)
    assert.deepEqual(messages[1], { type: 'subscribe', status: 'success',
      data: { event: 'request.status.updated', filters: { id: requestId } } })
    const events = messages.slice(2)
    for (const e of events) {
      assert.equal(e.event, 'request.status.updated')
      assert.equal(e.data.requestId, requestId)
      assert.equal(typeof e.publishedAt, 'number')
    }
    // The current state first (the quote: waiting), then every change in order to success.
    const statuses = events.map((e) => e.data.status)
    assert.equal(statuses[0], 'waiting')
    assert.equal(statuses.at(-1), 'success')
    const order = ['waiting', 'pending', 'submitted', 'success']
    for (let i = 1; i < statuses.length; i++) {
      assert.ok(order.indexOf(statuses[i]) >= order.indexOf(statuses[i - 1]), `out of order: ${statuses}`)
    }
    assert.ok(statuses.includes('pending') && statuses.includes('submitted'), `every transition: ${statuses}`)
    const last = events.at(-1).data
    assert.deepEqual(last.inTxHashes.map((h) => h.toLowerCase()), [hash.toLowerCase()])
    assert.equal(last.txHashes.length, 1)
    assert.equal(last.originChainId, 31337)
    assert.equal(last.destinationChainId, 31338)

    const st = await (await fetch(`${API}/intents/status/v3?requestId=${requestId}`)).json()
    assert.equal(st.status, 'success')
    assert.deepEqual(st.txHashes, last.txHashes)
  })
})
