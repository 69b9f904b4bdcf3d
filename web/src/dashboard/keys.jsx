// The keys page and a key's webhook page. Support users see the keys' labels only and no
// actions: the API answers them labels only and 403 on every other key route.
import { useEffect, useState } from 'preact/hooks'
import { get, patch, post, put } from './api.js'
import { ErrorNote } from './ui.jsx'

const when = (t) => (t ? new Date(t).toLocaleString() : '—')

function limitsText(k) {
  if (k.unlimited) return 'unlimited'
  return Object.entries(k.limits || {}).map(([name, r]) => `${name}: ${r.count}/${r.period}`).join(', ') || '—'
}

// Copy is a button that copies a value shown once.
export function Copy({ value, label }) {
  const [done, setDone] = useState(false)
  const copy = async () => {
    try { await navigator.clipboard.writeText(value); setDone(true) } catch { setDone(false) }
  }
  return <button type="button" onClick={copy}>{done ? 'Copied' : label || 'Copy'}</button>
}

// Secret shows a value the API answers once.
export function Secret({ title, value, note }) {
  return (
    <div class="secret" role="status">
      <p>{title}</p>
      <code data-testid="secret-value">{value}</code> <Copy value={value} />
      <p class="hint">{note || 'It is shown this once: keep it now.'}</p>
    </div>
  )
}

function KeyRow({ k, onChanged }) {
  const [renaming, setRenaming] = useState(false)
  const [label, setLabel] = useState(k.label)
  const [confirming, setConfirming] = useState(false)
  const [error, setError] = useState(null)
  const rename = async (e) => {
    e.preventDefault()
    try { await patch(`/keys/${k.id}`, { label }); setRenaming(false); onChanged() } catch (err) { setError(err) }
  }
  const revoke = async () => {
    try { await post(`/keys/${k.id}/revoke`); setConfirming(false); onChanged() } catch (err) { setError(err) }
  }
  return (
    <tr data-key={k.id}>
      <td>{renaming
        ? <form class="inline" onSubmit={rename}><label>New label <input value={label} onInput={(e) => setLabel(e.target.value)} /></label><button type="submit">Save</button></form>
        : k.label}</td>
      <td><code>{k.prefix}</code></td>
      <td>{k.environment}</td>
      <td>{k.tier} <span class="hint">{limitsText(k)}</span></td>
      <td>{when(k.createdAt)}</td>
      <td>{when(k.lastUsedAt)}</td>
      <td>{k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'live'}</td>
      <td class="actions">
        {!k.revokedAt && <>
          <a href={`#/keys/${k.id}/webhook`}>Webhook</a>
          <button type="button" onClick={() => setRenaming(!renaming)}>Rename</button>
          {confirming
            ? <button type="button" class="danger" onClick={revoke}>Confirm revoke of {k.label}</button>
            : <button type="button" onClick={() => setConfirming(true)}>Revoke</button>}
        </>}
        <ErrorNote error={error} />
      </td>
    </tr>
  )
}

export function Keys({ me }) {
  const [keys, setKeys] = useState(null)
  const [error, setError] = useState(null)
  const [label, setLabel] = useState('')
  const [environment, setEnvironment] = useState('')
  const [created, setCreated] = useState(null)
  const load = () => get('/keys').then((d) => setKeys(d.apiKeys || []), setError)
  useEffect(() => { load() }, [])
  const support = me.role === 'support'
  const create = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      const body = { label }
      if (environment) body.environment = environment
      setCreated(await post('/keys', body))
      setLabel('')
      load()
    } catch (err) { setError(err) }
  }
  return (
    <section>
      <h1>Keys</h1>
      <ErrorNote error={error} />
      {support
        ? <ul class="labels" aria-label="Keys">{(keys || []).map((k) => <li>{k.label}</li>)}</ul>
        : <>
          <form class="row" onSubmit={create} aria-label="Create a key">
            <label>Label <input name="label" required maxLength={64} value={label} onInput={(e) => setLabel(e.target.value)} /></label>
            <label>Environment <select value={environment} onChange={(e) => setEnvironment(e.target.value)}>
              <option value="">default</option><option value="production">production</option><option value="staging">staging</option><option value="dev">dev</option>
            </select></label>
            <button type="submit">Create key</button>
          </form>
          {created && <Secret title={`The value of key ${created.apiKey.label}:`} value={created.key} />}
          <table>
            <thead><tr><th>Label</th><th>Prefix</th><th>Environment</th><th>Tier and limits</th><th>Created</th><th>Last used</th><th>State</th><th>Actions</th></tr></thead>
            <tbody>{(keys || []).map((k) => <KeyRow key={k.id} k={k} onChanged={load} />)}</tbody>
          </table>
        </>}
    </section>
  )
}

// headersText and parseHeaders turn custom headers into lines of "Name: value" and back.
function parseHeaders(text) {
  const out = {}
  for (const line of text.split('\n')) {
    const i = line.indexOf(':')
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim()
  }
  return out
}

export function Webhook({ keyId }) {
  const [hook, setHook] = useState(undefined)
  const [url, setURL] = useState('')
  const [headers, setHeaders] = useState('')
  const [enabled, setEnabled] = useState(true)
  const [secret, setSecret] = useState(null)
  const [deliveries, setDeliveries] = useState([])
  const [note, setNote] = useState('')
  const [error, setError] = useState(null)
  const base = `/keys/${encodeURIComponent(keyId)}/webhook`
  const loadLog = () => get(base + '/deliveries').then((d) => setDeliveries(d.deliveries || []), () => setDeliveries([]))
  const load = () => get(base).then((d) => {
    setHook(d.webhook); setURL(d.webhook.url); setEnabled(d.webhook.enabled)
    loadLog()
  }, (err) => { if (err.status === 404) setHook(null); else setError(err) })
  useEffect(() => { load() }, [keyId])
  const act = (f) => async (e) => {
    e && e.preventDefault()
    setError(null); setNote('')
    try { await f() } catch (err) { setError(err) }
  }
  const save = act(async () => {
    const body = { url, enabled }
    if (headers.trim() || !hook) body.headers = parseHeaders(headers)
    const d = await put(base, body)
    if (d.secret) setSecret({ title: 'The webhook\'s signing secret:', value: d.secret })
    setHook(d.webhook); setNote('Webhook saved.')
    loadLog()
  })
  const rotate = act(async () => {
    const d = await post(base + '/rotate')
    setSecret({ title: 'The new signing secret (the old one signs beside it for a day):', value: d.secret })
    setHook(d.webhook)
  })
  const test = act(async () => {
    const d = await post(base + '/test')
    setNote(`Test delivery ${d.deliveryId} queued.`)
    loadLog()
  })
  const resend = (id) => act(async () => {
    await post(`${base}/deliveries/${id}/resend`)
    setNote(`Delivery ${id} queued again.`)
    loadLog()
  })
  if (hook === undefined && !error) return <p>Loading…</p>
  return (
    <section>
      <p><a href="#/keys">← Keys</a></p>
      <h1>Webhook</h1>
      <ErrorNote error={error} />
      <form onSubmit={save} aria-label="Webhook">
        <label>URL <input type="url" name="url" required value={url} onInput={(e) => setURL(e.target.value)} /></label>
        <label>Custom headers (one "Name: value" a line{hook && hook.headerNames && hook.headerNames.length ? `; set: ${hook.headerNames.join(', ')}` : ''})
          <textarea name="headers" rows={3} value={headers} onInput={(e) => setHeaders(e.target.value)} /></label>
        <label class="check"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled</label>
        <button type="submit">Save webhook</button>
      </form>
      {hook && <p class="hint">Secret <code>{hook.secretPrefix}…</code>{hook.previousSecretExpiresAt ? `; the previous one signs until ${when(hook.previousSecretExpiresAt)}` : ''}</p>}
      {secret && <Secret title={secret.title} value={secret.value} />}
      {note && <p class="ok" role="status">{note}</p>}
      {hook && <div class="row">
        <button type="button" onClick={rotate}>Rotate the secret</button>
        <button type="button" onClick={test}>Send a test</button>
        <button type="button" onClick={act(loadLog)}>Refresh the log</button>
      </div>}
      {hook && <>
        <h2>Deliveries</h2>
        <table aria-label="Deliveries">
          <thead><tr><th>Id</th><th>Event</th><th>Request</th><th>State</th><th>Attempts</th><th>Last status</th><th>Created</th><th></th></tr></thead>
          <tbody>{deliveries.map((d) => (
            <tr data-delivery={d.id}>
              <td>{d.id}</td><td>{d.event}</td><td>{d.requestId}</td><td class="state">{d.state}</td><td>{d.attempts}</td>
              <td>{d.lastStatusCode ?? (d.lastError || '—')}</td><td>{when(d.createdAt)}</td>
              <td><button type="button" onClick={resend(d.id)}>Re-send</button></td>
            </tr>))}
          </tbody>
        </table>
      </>}
    </section>
  )
}
