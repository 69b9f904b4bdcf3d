// The API reference in a browser (issue 39, point 5: "The API reference at /documentation
// rendered by a well-kept OpenAPI viewer (embedded, no outside assets)"): headless Chromium
// (Debian's, /usr/bin/chromium, driven by playwright-core) opens intentd's GET /documentation
// itself, waits for the viewer to render the operations from /documentation/openapi.json, and
// sends one request with "Try it out". Every request the page makes is recorded and must stay on
// loopback, and the console must show no Content-Security-Policy violation: the page's policy
// allows scripts from the service only. A screenshot of the page is saved to the directory
// INTENTD_SCREENSHOTS names (`make screenshots`: docs/screenshots), else to a temporary one, so
// that a test run leaves the repository as it was. e2e/sdk_test.go runs it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import { chromium } from 'playwright-core'

const API = process.env.INTENTD_API_URL
if (!API) throw new Error('INTENTD_API_URL is not set: run this suite through e2e/sdk_test.go (make test)')
const CHROMIUM = process.env.INTENTD_CHROMIUM || '/usr/bin/chromium'
// Without the background-networking flags Chromium waits on services it cannot reach here.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']
const SCREENSHOTS = process.env.INTENTD_SCREENSHOTS || path.join(os.tmpdir(), 'intentd-screenshots')
const SCREENSHOT = path.join(SCREENSHOTS, 'documentation.png')

// onLoopback: a request the page may make (the service itself, or an icon its stylesheet inlines).
const onLoopback = (url) => {
  const u = new URL(url)
  if (u.protocol === 'data:') return true
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
}

let browser

describe('the API reference in headless Chromium', () => {
  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 })
  })
  after(async () => { await browser?.close() })

  it('renders every operation from the embedded viewer, loading nothing from elsewhere', { timeout: 90_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const requests = []
    const console = []
    const errors = []
    page.on('request', (r) => requests.push(r.url()))
    page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`))
    page.on('pageerror', (e) => errors.push(String(e)))

    const res = await page.goto(API + '/documentation')
    assert.equal(res.status(), 200)
    const csp = res.headers()['content-security-policy']
    assert.match(csp, /script-src 'self';/)

    // The viewer renders the operations of the document: POST /quote/v2 among them.
    const quote = page.locator('.opblock.opblock-post', { has: page.locator('[data-path="/quote/v2"]') })
    await quote.waitFor({ timeout: 30_000 })
    assert.equal((await quote.locator('.opblock-summary-method').innerText()).trim(), 'POST')
    const operations = await page.locator('.opblock').count()
    assert.ok(operations >= 40, `${operations} operations rendered`)
    assert.equal(await page.title(), 'intentd API')

    await mkdir(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: SCREENSHOT })

    // "Try it out" sends the request to the service: GET /lives answers 200 in the page.
    const lives = page.locator('.opblock.opblock-get', { has: page.locator('[data-path="/lives"]') })
    await lives.locator('.opblock-summary').first().click()
    await lives.locator('button.try-out__btn').click()
    await lives.locator('button.execute').click()
    const answered = lives.locator('.live-responses-table tbody .response-col_status').first()
    await answered.waitFor({ timeout: 15_000 })
    const status = await answered.innerText()
    assert.match(status, /200/, `Try it out answered ${status}`)
    assert.ok(requests.some((u) => u === API + '/lives'), 'the page sent GET /lives')

    const outside = requests.filter((u) => !onLoopback(u))
    assert.deepEqual(outside, [], 'requests that left loopback')
    const violations = console.filter((m) => /Content.Security.Policy|Refused to/i.test(m))
    assert.deepEqual(violations, [], 'Content-Security-Policy violations in the console')
    assert.deepEqual(errors, [], 'errors thrown in the page')
    globalThis.console.log(`# ${operations} operations rendered from ${requests.length} requests, all on loopback; console: ${console.length} messages`)
    await page.close()
  })
})
