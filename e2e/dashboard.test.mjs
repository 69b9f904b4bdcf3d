// The integrator dashboard in a browser (issue 39: "Tests in a real browser: Playwright with
// Debian's Chromium, headless, signs in and drives every page … screenshots of each page in
// docs/"). e2e/dashboard_test.go starts the stack and makes the integrator's owner and support
// users through the admin API, each with a one-time link; here headless Chromium (Debian's,
// /usr/bin/chromium, driven by playwright-core) does the rest as the users would: the owner signs
// in by link, sets a password, signs out and in again by password, creates a key (its value read
// from the page), makes a real quote with it, finds that request in the list, filters and saves a
// view, opens the request's page, configures the key's webhook towards a receiver on loopback and
// sees its test delivery in the log, reads the observability chart and the balance, invites a
// teammate and revokes the key; the support user sees the keys' labels only. Every request the
// pages make must stay on loopback, and no Content-Security-Policy violation or page error may
// happen. Screenshots go to INTENTD_SCREENSHOTS (`make screenshots`: docs/screenshots), else to a
// temporary directory.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'

import { chromium } from 'playwright-core'

const API = process.env.INTENTD_API_URL
if (!API) throw new Error('INTENTD_API_URL is not set: run this suite through e2e/dashboard_test.go (make test)')
const CHROMIUM = process.env.INTENTD_CHROMIUM || '/usr/bin/chromium'
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']
const SCREENSHOTS = process.env.INTENTD_SCREENSHOTS || path.join(os.tmpdir(), 'intentd-screenshots')
const OWNER = process.env.INTENTD_OWNER_EMAIL
const PASSWORD = 'a long enough password for the suite'
const NATIVE = '0x0000000000000000000000000000000000000000'

const onLoopback = (url) => {
  const u = new URL(url)
  if (u.protocol === 'data:') return true
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
}

let browser
// watched records what a page does that the suite checks at the end.
const watched = { requests: [], console: [], errors: [] }

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  page.on('request', (r) => watched.requests.push(r.url()))
  page.on('console', (m) => watched.console.push(`${m.type()}: ${m.text()}`))
  page.on('pageerror', (e) => watched.errors.push(String(e)))
  return page
}

// shot saves the page's screenshot; a value shown once (a key, a secret, a link) is masked, so
// that none reaches the repository even from a stack that no longer runs.
async function shot(page, name) {
  await mkdir(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `dashboard-${name}.png`), fullPage: true,
    mask: [page.getByTestId('secret-value')] })
}

// until polls f until it answers something truthy.
async function until(what, f, ms = 30_000) {
  const end = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

// A webhook receiver on loopback: it records every delivery's event type.
const received = []
const receiver = http.createServer((req, res) => {
  let body = ''
  req.on('data', (c) => { body += c })
  req.on('end', () => {
    received.push({ event: req.headers['x-event-type'], header: req.headers['x-team'], body })
    res.writeHead(200).end('ok')
  })
})

describe('the integrator dashboard in headless Chromium', () => {
  let owner, keyValue, keyId, requestId
  before(async () => {
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r))
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 })
    owner = await newPage()
  })
  after(async () => {
    await browser?.close()
    receiver.close()
  })

  it('the owner signs in by the one-time link, sets a password, signs out and in by password', { timeout: 60_000 }, async () => {
    const res = await owner.goto(API + process.env.INTENTD_OWNER_LINK)
    assert.equal(res.status(), 200)
    assert.match(res.headers()['content-security-policy'], /script-src 'self';/)
    await owner.getByLabel('New password (12 characters or more)').fill(PASSWORD)
    await owner.getByRole('button', { name: 'Save password' }).click()
    await owner.getByText('Password saved.').waitFor()
    assert.ok(!owner.url().includes('link='), 'the link token is left in the address bar')
    await owner.getByRole('button', { name: 'Sign out' }).click()
    await owner.getByRole('heading', { name: 'Sign in' }).waitFor()
    await owner.getByLabel('Email').fill(OWNER)
    await owner.getByLabel('Password').fill(PASSWORD)
    await shot(owner, 'sign-in')
    await owner.getByRole('button', { name: 'Sign in' }).click()
    await owner.getByRole('heading', { name: 'Keys' }).waitFor()
    assert.match(await owner.locator('header .who').innerText(), /owner@dashboard\.test · owner · Dashboard suite/)
  })

  it('creates a key, its value shown once on the page', { timeout: 30_000 }, async () => {
    await owner.getByLabel('Label').fill('checkout')
    await owner.getByRole('button', { name: 'Create key' }).click()
    keyValue = (await owner.getByTestId('secret-value').innerText()).trim()
    assert.ok(keyValue.length >= 20, `the key's value: ${keyValue}`)
    const row = owner.locator('tr[data-key]', { hasText: 'checkout' })
    await row.waitFor()
    keyId = await row.getAttribute('data-key')
    assert.match(await row.innerText(), /live/)
    const byId = owner.locator(`tr[data-key="${keyId}"]`)
    await byId.getByRole('button', { name: 'Rename' }).click()
    await byId.getByLabel('New label').fill('checkout web')
    await byId.getByRole('button', { name: 'Save', exact: true }).click()
    await owner.locator(`tr[data-key="${keyId}"]`, { hasText: 'checkout web' }).waitFor()
    await shot(owner, 'keys')
  })

  it('sees a request made with the key in the list, filters it, saves a view and opens its page', { timeout: 60_000 }, async () => {
    const res = await fetch(API + '/quote/v2', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keyValue },
      body: JSON.stringify({ user: process.env.INTENTD_USER, originChainId: 31337, destinationChainId: 31338,
        originCurrency: NATIVE, destinationCurrency: process.env.INTENTD_USDC, amount: '100000000000000000', tradeType: 'EXACT_INPUT' }),
    })
    const quote = await res.json()
    assert.equal(res.status, 200, JSON.stringify(quote))
    requestId = quote.steps.find((s) => s.requestId).requestId
    await owner.getByRole('link', { name: 'Requests' }).click()
    const row = owner.locator(`tr[data-request="${requestId}"]`)
    await row.waitFor()
    const status = (await row.locator('td.status').innerText()).trim()

    // A status condition the request meets keeps it; one it does not meet leaves it out.
    const filters = owner.getByRole('form', { name: 'Filters' })
    await filters.getByLabel('Field').selectOption('status')
    await filters.getByLabel('Value').selectOption(status === 'failure' ? 'success' : 'failure')
    await filters.getByRole('button', { name: 'Apply filters' }).click()
    await owner.getByText('No request matches.').waitFor()
    // An OR group the request meets brings it back beside the first group it does not meet.
    await filters.getByRole('button', { name: 'Or…' }).click()
    const or = filters.locator('fieldset').nth(1)
    await or.getByLabel('Field').selectOption('status')
    await or.getByLabel('Value').selectOption(status)
    await filters.getByRole('button', { name: 'Apply filters' }).click()
    await row.waitFor()
    await or.getByRole('button', { name: 'Remove this condition' }).click()
    await filters.getByLabel('Value').selectOption(status)
    await filters.getByRole('button', { name: 'Apply filters' }).click()
    await row.waitFor()

    const save = owner.getByRole('form', { name: 'Save as a view' })
    await save.getByLabel('View name').fill(`Status ${status}`)
    await save.getByLabel('Icon').fill('filter')
    await save.getByRole('button', { name: 'Save view' }).click()
    const views = owner.getByRole('navigation', { name: 'Views' })
    await views.getByRole('button', { name: `Status ${status}`, exact: true }).waitFor()
    for (const builtin of ['Failed', 'Refunds']) await views.getByRole('button', { name: builtin, exact: true }).waitFor()
    await views.getByRole('button', { name: 'All', exact: true }).click()
    await row.waitFor()
    await views.getByRole('button', { name: `Status ${status}`, exact: true }).click()
    await row.waitFor()
    await shot(owner, 'requests')

    // The search box finds it by its id.
    await owner.getByLabel('Request id, transaction hash or deposit address').fill(requestId)
    await owner.getByRole('button', { name: 'Search' }).click()
    await owner.getByRole('list', { name: 'Matches' }).getByText('matched on requestId').waitFor()

    await row.getByRole('link').click()
    await owner.getByRole('heading', { name: `Request ${requestId}` }).waitFor()
    assert.equal((await owner.locator('dd.status').innerText()).trim(), status)
    await shot(owner, 'request')
  })

  it('configures the key\'s webhook and sees its test delivery in the log', { timeout: 60_000 }, async () => {
    const { port } = receiver.address()
    await owner.getByRole('link', { name: 'Keys' }).click()
    await owner.locator(`tr[data-key="${keyId}"]`).getByRole('link', { name: 'Webhook' }).click()
    await owner.getByRole('heading', { name: 'Webhook' }).waitFor()
    await owner.getByLabel('URL').fill(`http://127.0.0.1:${port}/hooks`)
    await owner.getByLabel(/Custom headers/).fill('X-Team: checkout')
    await owner.getByRole('button', { name: 'Save webhook' }).click()
    await owner.getByText('Webhook saved.').waitFor()
    const secret = (await owner.getByTestId('secret-value').innerText()).trim()
    assert.ok(secret.length >= 20, 'the signing secret is shown once')
    await owner.getByRole('button', { name: 'Send a test' }).click()
    await owner.getByText(/Test delivery \d+ queued/).waitFor()
    const got = await until('the test delivery at the receiver', () => received.find((r) => r.event === 'webhook.test'))
    assert.equal(got.header, 'checkout', 'the custom header is sent')
    await until('the delivered test in the log', async () => {
      await owner.getByRole('button', { name: 'Refresh the log' }).click()
      const row = owner.locator('tr[data-delivery]', { hasText: 'webhook.test' })
      return (await row.count()) > 0 && (await row.first().locator('td.state').innerText()).trim() === 'delivered'
    })
    // Re-sent, it is delivered again as a delivery of its own.
    await owner.locator('tr[data-delivery]', { hasText: 'webhook.test' }).first().getByRole('button', { name: 'Re-send' }).click()
    await owner.getByText(/Delivery \d+ queued again/).waitFor()
    await until('the re-sent test at the receiver', () => received.filter((r) => r.event === 'webhook.test').length >= 2)
    // Rotating the secret shows the new one, once.
    await owner.getByRole('button', { name: 'Rotate the secret' }).click()
    await owner.getByText(/The new signing secret/).waitFor()
    const rotated = (await owner.getByTestId('secret-value').innerText()).trim()
    assert.ok(rotated.length >= 20 && rotated !== secret, 'a new signing secret is shown')
    await shot(owner, 'webhook')
  })

  it('reads the observability chart, whose totals are the API\'s', { timeout: 60_000 }, async () => {
    // The usage counts are flushed by the API every few seconds: wait until the quote is counted.
    const calls = () => owner.evaluate(async () => {
      const to = Math.floor(Date.now() / 1000)
      const r = await (await fetch(`/dashboard/api/observability?from=${to - 86400}&to=${to}&granularity=hourly`)).json()
      return r.buckets.reduce((s, b) => s + b.calls, 0)
    })
    const total = await until('the quote counted', async () => ((await calls()) >= 1 ? calls() : 0))
    await owner.getByRole('link', { name: 'Observability' }).click()
    await owner.getByRole('heading', { name: 'Observability' }).waitFor()
    await owner.locator('.chart canvas').first().waitFor()
    assert.equal(Number(await owner.locator('[data-total="calls"] strong').innerText()), total)
    assert.ok(await owner.getByRole('table', { name: 'Errors by code' }).isVisible())
    await shot(owner, 'observability')
  })

  it('shows the sponsorship balance and the team, and invites a teammate', { timeout: 30_000 }, async () => {
    await owner.getByRole('link', { name: 'Balance' }).click()
    await owner.getByTestId('balance').waitFor()
    await shot(owner, 'balance')
    await owner.getByRole('link', { name: 'Team' }).click()
    const invite = owner.getByRole('form', { name: 'Invite a user' })
    await invite.getByLabel('Email').fill('dev@dashboard.test')
    await invite.getByLabel('Role').selectOption('developer')
    await invite.getByRole('button', { name: 'Invite' }).click()
    assert.match(await owner.getByTestId('secret-value').innerText(), /\/dashboard\/#link=/)
    await owner.locator('tr[data-user]', { hasText: 'dev@dashboard.test' }).waitFor()
    await shot(owner, 'team')
  })

  it('the support user sees the keys\' labels only, no actions, and the key routes are 403', { timeout: 60_000 }, async () => {
    const support = await newPage()
    await support.goto(API + process.env.INTENTD_SUPPORT_LINK)
    await support.getByLabel('New password (12 characters or more)').waitFor()
    assert.equal(await support.getByRole('link', { name: 'Team' }).count(), 0)
    assert.equal(await support.getByRole('link', { name: 'Balance' }).count(), 0)
    await support.getByRole('link', { name: 'Keys' }).click()
    const labels = support.getByRole('list', { name: 'Keys' })
    await labels.getByText('checkout web').waitFor()
    const text = await support.locator('main').innerText()
    assert.ok(!text.includes(keyValue.slice(0, 8)), 'a key\'s value or prefix is shown to support')
    for (const name of ['Create key', 'Rename', 'Revoke']) assert.equal(await support.getByRole('button', { name }).count(), 0, name)
    assert.equal(await support.getByRole('link', { name: 'Webhook' }).count(), 0)
    const statuses = await support.evaluate(async (id) => {
      const keys = await (await fetch('/dashboard/api/keys')).json()
      return { keys, webhook: (await fetch(`/dashboard/api/keys/${id}/webhook`)).status,
        log: (await fetch(`/dashboard/api/keys/${id}/webhook/deliveries`)).status }
    }, keyId)
    assert.deepEqual(statuses.keys.apiKeys.map((k) => Object.keys(k)), [['label']])
    assert.equal(statuses.webhook, 403)
    assert.equal(statuses.log, 403)
    await shot(support, 'keys-support')
    await support.context().close()
  })

  it('the owner revokes the key, which the API then refuses', { timeout: 30_000 }, async () => {
    await owner.getByRole('link', { name: 'Keys' }).click()
    const row = owner.locator(`tr[data-key="${keyId}"]`)
    await row.getByRole('button', { name: 'Revoke' }).click()
    await row.getByRole('button', { name: 'Confirm revoke of checkout web' }).click()
    await row.getByText(/^revoked/).waitFor()
    await until('the key refused', async () => {
      const res = await fetch(API + '/requests/v3', { headers: { 'x-api-key': keyValue } })
      return res.status === 401
    })
  })

  it('loaded nothing from elsewhere, and broke no policy', () => {
    assert.deepEqual(watched.requests.filter((u) => !onLoopback(u)), [], 'requests that left loopback')
    assert.deepEqual(watched.console.filter((m) => /Content.Security.Policy|Refused to/i.test(m)), [], 'policy violations')
    assert.deepEqual(watched.errors, [], 'errors thrown in the pages')
  })
})
