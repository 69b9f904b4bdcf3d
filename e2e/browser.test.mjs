// The public SDK in a browser, with its websocket option enabled and pointed at intentd's stream,
// tracking a bridge to success. The SDK opens websockets only where window.WebSocket exists, so
// this runs in headless Chromium (Debian's, /usr/bin/chromium, installed by scripts/chromium.sh)
// driven by playwright-core. The page (browser/page.mjs, bundled here with esbuild) is served
// from loopback by this test, which also forwards the page's API calls to intentd (the API sends
// no CORS headers; the websocket goes to intentd directly, as websockets are not subject to
// CORS). The page records every websocket it opens and every message on it, so the test can
// tell that the SDK followed the request on the stream. e2e/sdk_test.go runs it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { fileURLToPath } from 'node:url'

import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'

const env = (name) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set: run this suite through e2e/sdk_test.go (make test)`)
  return v
}
const API = env('INTENTD_API_URL')
const WS = env('INTENTD_WS_URL')
const RPC = env('INTENTD_RPC_31337')
const API_KEY = env('INTENTD_API_KEY')
const CHROMIUM = process.env.INTENTD_CHROMIUM || '/usr/bin/chromium'
// Without the background-networking flags Chromium waits on services it cannot reach here.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

// The page wraps window.WebSocket before the SDK loads, to record what the SDK does with it.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>intentd websocket</title><script>
window.__ws = []
const Native = window.WebSocket
window.WebSocket = class extends Native {
  constructor(url, protocols) {
    super(url, protocols)
    this.__rec = { url: String(url), sent: [], received: [], closed: null }
    window.__ws.push(this.__rec)
    this.addEventListener('message', (e) => this.__rec.received.push(typeof e.data === 'string' ? e.data : '[binary]'))
    this.addEventListener('close', (e) => { this.__rec.closed = e.code })
  }
  send(data) { this.__rec.sent.push(String(data)); super.send(data) }
}
</script><script src="/bundle.js"></script></head><body></body></html>`

let server, origin, bundle, browser
const polls = [] // the page's status polls, forwarded to the API

// forward sends one of the page's API calls to intentd with the integrator's key, as an app's
// backend would (in a browser the SDK sends its page's host as the quote's referrer, which
// intentd accepts only with a key), and its answer back.
async function forward(req, res) {
  const chunks = []
  for await (const c of req) chunks.push(c)
  if (req.url.startsWith('/intents/status')) polls.push(req.url)
  const headers = { 'x-api-key': API_KEY }
  for (const h of ['content-type', 'relay-sdk-version']) if (req.headers[h]) headers[h] = req.headers[h]
  const answer = await fetch(API + req.url, { method: req.method, headers,
    body: ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks) })
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') || 'application/json' })
  res.end(Buffer.from(await answer.arrayBuffer()))
}

describe('the public SDK in headless Chromium with the websocket enabled', () => {
  before(async () => {
    const out = await build({
      entryPoints: [fileURLToPath(new URL('browser/page.mjs', import.meta.url))], bundle: true, write: false,
      format: 'iife', platform: 'browser', target: 'chrome120', logLevel: 'warning',
      define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    })
    bundle = out.outputFiles[0].contents
    server = http.createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' })
        return res.end(PAGE)
      }
      if (req.url === '/bundle.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' })
        return res.end(bundle)
      }
      forward(req, res).catch((err) => { res.writeHead(502); res.end(String(err)) })
    })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${server.address().port}`
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 })
  })
  after(async () => {
    await browser?.close()
    server?.close()
  })

  it('tracks a bridge 31337 -> 31338 to success on the stream', { timeout: 150_000 }, async () => {
    const page = await browser.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.goto(origin + '/')
    const key = toHex(mnemonicToAccount('test test test test test test test test test test test junk',
      { addressIndex: 8 }).getHdKey().privateKey)
    const result = await page.evaluate((cfg) => window.bridge(cfg), { api: origin, ws: WS, rpc: RPC, key })
    const sockets = await page.evaluate(() => window.__ws)
    assert.deepEqual(errors, [])
    assert.equal(result.status, 'complete')
    assert.equal(result.checkStatus, 'success', `the SDK's check: ${JSON.stringify(result)}`)

    // The SDK opened our stream, subscribed to the request from its open handler, and heard
    // the request succeed there.
    const mine = sockets.filter((s) => s.url.startsWith(WS))
    assert.equal(mine.length, 1, `websockets opened: ${JSON.stringify(sockets.map((s) => s.url))}`)
    const ws = mine[0]
    assert.deepEqual(ws.sent.map((m) => JSON.parse(m)), [{ type: 'subscribe', event: 'request.status.updated',
      filters: { id: result.requestId } }])
    const received = ws.received.map((m) => JSON.parse(m))
    assert.equal(received[0].type, 'connection')
    assert.equal(received[1].status, 'success')
    const statuses = received.filter((m) => m.event === 'request.status.updated').map((m) => {
      assert.equal(m.data.requestId, result.requestId)
      return m.data.status
    })
    assert.equal(statuses.at(-1), 'success', `statuses on the stream: ${statuses}`)
    console.log(`# the SDK heard ${statuses.join(' -> ')} on the stream; it polled the status ${polls.length} times`)
    // With its websocket open the SDK does not poll: it polls only once the socket fails.
    assert.deepEqual(polls, [], 'the SDK fell back to polling')
  })
})
