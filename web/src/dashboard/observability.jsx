// The observability page (request volume, errors by code, 429 pressure by endpoint and key over a
// chosen range, drawn with uPlot from the usage counts) and the balance page (the sponsorship
// balance and its history).
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { get, query } from './api.js'
import { ErrorNote } from './ui.jsx'

const ranges = [
  { id: '1h', label: 'Last hour', seconds: 3600, granularity: 'minutely' },
  { id: '24h', label: 'Last 24 hours', seconds: 86400, granularity: 'hourly' },
  { id: '7d', label: 'Last 7 days', seconds: 7 * 86400, granularity: 'daily' },
  { id: '30d', label: 'Last 30 days', seconds: 30 * 86400, granularity: 'daily' },
]

// Chart draws the buckets' calls, errors and 429s as three series over time.
function Chart({ buckets }) {
  const el = useRef(null)
  useEffect(() => {
    if (!el.current) return
    const data = [
      buckets.map((b) => (typeof b.t === 'number' ? b.t : Math.floor(new Date(b.t).getTime() / 1000))),
      buckets.map((b) => b.calls), buckets.map((b) => b.errors), buckets.map((b) => b.rateLimited),
    ]
    const plot = new uPlot({
      width: Math.max(320, el.current.clientWidth || 800), height: 260,
      series: [{}, { label: 'Calls', stroke: '#2f6fde', width: 2 }, { label: 'Errors', stroke: '#c0392b', width: 2 },
        { label: '429', stroke: '#d68910', width: 2 }],
      axes: [{}, { label: 'per bucket' }],
    }, data, el.current)
    return () => plot.destroy()
  }, [buckets])
  return <div class="chart" ref={el} role="img" aria-label="Calls, errors and rate-limited calls over time" />
}

function CountTable({ label, rows, name }) {
  return (
    <table aria-label={label}>
      <caption>{label}</caption>
      <thead><tr><th>{name}</th><th>Count</th></tr></thead>
      <tbody>{rows.map(([k, n]) => <tr><td>{k}</td><td>{n}</td></tr>)}</tbody>
      {rows.length === 0 && <tbody><tr><td colSpan={2}>None</td></tr></tbody>}
    </table>
  )
}

export function Observability() {
  const [range, setRange] = useState('24h')
  const [keyId, setKeyId] = useState('')
  const [keys, setKeys] = useState([])
  const [d, setD] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => { get('/keys').then((k) => setKeys((k.apiKeys || []).filter((x) => x.id)), () => {}) }, [])
  useEffect(() => {
    const r = ranges.find((x) => x.id === range)
    const to = Math.floor(Date.now() / 1000)
    setError(null)
    get('/observability' + query({ from: to - r.seconds, to, granularity: r.granularity, apiKeyId: keyId })).then(setD, setError)
  }, [range, keyId])
  const total = (f) => (d ? d.buckets.reduce((s, b) => s + (b[f] || 0), 0) : 0)
  return (
    <section>
      <h1>Observability</h1>
      <form class="row" aria-label="Range" onSubmit={(e) => e.preventDefault()}>
        <label>Range <select value={range} onChange={(e) => setRange(e.target.value)}>{ranges.map((r) => <option value={r.id}>{r.label}</option>)}</select></label>
        {keys.length > 0 && <label>Key <select value={keyId} onChange={(e) => setKeyId(e.target.value)}>
          <option value="">all keys</option>{keys.map((k) => <option value={k.id}>{k.label}</option>)}
        </select></label>}
      </form>
      <ErrorNote error={error} />
      {d && <>
        <figure>
          <Chart buckets={d.buckets || []} />
          <figcaption>
            <span data-total="calls">Calls: <strong>{total('calls')}</strong></span>{' · '}
            <span data-total="errors">Errors: <strong>{total('errors')}</strong></span>{' · '}
            <span data-total="rateLimited">Rate-limited (429): <strong>{total('rateLimited')}</strong></span>
            {' · '}{d.granularity} buckets
          </figcaption>
        </figure>
        <div class="columns">
          <CountTable label="Errors by code" name="Code" rows={(d.errorsByCode || []).map((x) => [x.code, x.count])} />
          <CountTable label="429 by endpoint" name="Endpoint" rows={(d.rateLimitedByEndpoint || []).map((x) => [x.endpoint, x.count])} />
          <CountTable label="429 by key" name="Key" rows={(d.rateLimitedByKey || []).map((x) => [x.label, x.count])} />
        </div>
      </>}
    </section>
  )
}

export function Balance() {
  const [d, setD] = useState(null)
  const [more, setMore] = useState([])
  const [error, setError] = useState(null)
  useEffect(() => { get('/balance').then(setD, setError) }, [])
  const history = d ? d.history.concat(more) : []
  const next = async () => {
    const last = history[history.length - 1]
    try { setMore(more.concat((await get('/balance' + query({ before: last.id }))).history || [])) } catch (err) { setError(err) }
  }
  return (
    <section>
      <h1>Sponsorship balance</h1>
      <ErrorNote error={error} />
      {d && <>
        <p class="balance"><strong data-testid="balance">{d.balance.amount}</strong> {d.balance.currency} (smallest unit){d.balance.usd ? ` · $${d.balance.usd}` : ''}</p>
        <table aria-label="Balance history">
          <thead><tr><th>When</th><th>Kind</th><th>Amount</th><th>Balance after</th><th>Request</th><th>Reason</th></tr></thead>
          <tbody>{history.map((h) => (
            <tr><td>{new Date(h.at).toLocaleString()}</td><td>{h.kind}</td><td>{h.amount}</td><td>{h.balanceAfter}</td>
              <td>{h.requestId ? <a href={'#/requests/' + h.requestId}>{h.requestId.slice(0, 10)}…</a> : ''}</td><td>{h.reason || ''}</td></tr>))}
          </tbody>
        </table>
        {history.length === 0 && <p>No movement yet.</p>}
        {history.length > 0 && history.length % 50 === 0 && <button type="button" onClick={next}>Older</button>}
      </>}
    </section>
  )
}
