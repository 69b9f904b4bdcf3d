// The requests pages: the list with its filter builder (the `filters` groups of GET
// /requests/v3, ANDed keys in a group, ORed groups), the built-in and saved views, the search by
// request id or transaction hash, and a request's own page.
import { useEffect, useState } from 'preact/hooks'
import { del, get, post, query } from './api.js'
import { ErrorNote, go } from './ui.jsx'

// The keys a condition may name: the /requests filters a dashboard user reaches for.
const filterKeys = [
  { key: 'status', label: 'Status', values: ['waiting', 'pending', 'submitted', 'success', 'delayed', 'refunded', 'refund', 'failure'] },
  { key: 'failReason', label: 'Fail reason' },
  { key: 'chainId', label: 'Chain (either side)' },
  { key: 'originChainId', label: 'Origin chain' },
  { key: 'destinationChainId', label: 'Destination chain' },
  { key: 'currencyInSymbol', label: 'Currency in' },
  { key: 'currencyOutSymbol', label: 'Currency out' },
]
const numeric = new Set(['chainId', 'originChainId', 'destinationChainId'])

const emptyCondition = () => ({ key: 'status', value: '', not: false })

// filtersParam turns the builder's groups into the `filters` parameter: each group an object, each
// condition a key (with `not:` when negated) and its comma-separated values.
export function filtersParam(groups) {
  const out = []
  for (const g of groups) {
    const o = {}
    for (const c of g) {
      const values = String(c.value).split(',').map((v) => v.trim()).filter(Boolean)
        .map((v) => (numeric.has(c.key) && /^\d+$/.test(v) ? Number(v) : v))
      if (!values.length) continue
      o[(c.not ? 'not:' : '') + c.key] = values.length === 1 ? values[0] : values
    }
    if (Object.keys(o).length) out.push(o)
  }
  return out.length ? JSON.stringify(out) : ''
}

// groupsOf reads a `filters` parameter back into the builder's groups.
function groupsOf(filters) {
  if (!filters) return [[emptyCondition()]]
  try {
    return JSON.parse(filters).map((o) => Object.entries(o).map(([k, v]) => ({
      key: k.replace(/^not:/, ''), not: k.startsWith('not:'), value: [].concat(v).join(','),
    })))
  } catch { return [[emptyCondition()]] }
}

const toUnix = (local) => (local ? String(Math.floor(new Date(local).getTime() / 1000)) : '')
const fromUnix = (s) => (s ? new Date(Number(s) * 1000 - new Date().getTimezoneOffset() * 60000).toISOString().slice(0, 16) : '')

// side is one side of a request's route: its chain and currency, from the quoted amounts, else
// from its first transaction.
function side(amount, tx) {
  if (amount && amount.currency) return `${amount.amountFormatted || ''} ${amount.currency.symbol || ''} on ${amount.currency.chainId}`.trim()
  return tx ? `chain ${tx.chainId}` : '?'
}

function chainsOf(r) {
  const d = r.data || {}
  return `${side(d.currencyIn, (d.inTxs || [])[0])} → ${side(d.currencyOut, (d.outTxs || [])[0])}`
}

// amountText shows a fee: an amount object as its amount, symbol and USD value; a string as it is.
function amountText(v) {
  if (v === undefined || v === null || v === '') return '—'
  if (typeof v !== 'object') return String(v)
  if (v.usd !== undefined) return `${v.amountFormatted || v.amount} ($${v.usd})`
  if (v.currency) return `${v.amountFormatted || v.amount} ${v.currency.symbol || ''}${v.amountUsd ? ` ($${v.amountUsd})` : ''}`
  return Object.entries(v).map(([k, x]) => `${k}: ${amountText(x)}`).join(', ')
}

function Condition({ c, onChange, onRemove }) {
  const meta = filterKeys.find((k) => k.key === c.key) || filterKeys[0]
  return (
    <div class="condition">
      <label>Field <select value={c.key} onChange={(e) => onChange({ ...c, key: e.target.value, value: '' })}>
        {filterKeys.map((k) => <option value={k.key}>{k.label}</option>)}
      </select></label>
      <label>Is <select value={c.not ? 'not' : 'is'} onChange={(e) => onChange({ ...c, not: e.target.value === 'not' })}>
        <option value="is">is</option><option value="not">is not</option>
      </select></label>
      {meta.values
        ? <label>Value <select value={c.value} onChange={(e) => onChange({ ...c, value: e.target.value })}>
          <option value="">any</option>{meta.values.map((v) => <option value={v}>{v}</option>)}
        </select></label>
        : <label>Value <input value={c.value} placeholder="a, b (any of)" onInput={(e) => onChange({ ...c, value: e.target.value })} /></label>}
      <button type="button" onClick={onRemove} aria-label="Remove this condition">×</button>
    </div>
  )
}

function SaveView({ params, onSaved }) {
  const [name, setName] = useState('')
  const [icon, setIcon] = useState('star')
  const [colour, setColour] = useState('#2f6fde')
  const [error, setError] = useState(null)
  const save = async (e) => {
    e.preventDefault()
    setError(null)
    try { onSaved(await post('/views', { name, icon, colour, query: params })); setName('') } catch (err) { setError(err) }
  }
  return (
    <form class="row" onSubmit={save} aria-label="Save as a view">
      <label>View name <input name="viewName" required maxLength={64} value={name} onInput={(e) => setName(e.target.value)} /></label>
      <label>Icon <input name="viewIcon" required maxLength={16} value={icon} onInput={(e) => setIcon(e.target.value)} /></label>
      <label>Colour <input type="color" name="viewColour" value={colour} onInput={(e) => setColour(e.target.value)} /></label>
      <button type="submit">Save view</button>
      <ErrorNote error={error} />
    </form>
  )
}

function Search() {
  const [q, setQ] = useState('')
  const [matches, setMatches] = useState(null)
  const [error, setError] = useState(null)
  const search = async (e) => {
    e.preventDefault()
    setError(null)
    try { setMatches((await get('/search' + query({ q: q.trim() }))).matches || []) } catch (err) { setError(err); setMatches(null) }
  }
  return (
    <div>
      <form role="search" class="row" onSubmit={search}>
        <label>Request id, transaction hash or deposit address <input name="q" required value={q} onInput={(e) => setQ(e.target.value)} /></label>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={error} />
      {matches && <ul aria-label="Matches">
        {matches.length === 0 && <li>No request matches.</li>}
        {matches.map((m) => <li><a href={'#/requests/' + m.requestId}>{m.requestId}</a> {m.status} · matched on {m.matchedOn} · {new Date(m.createdAt).toLocaleString()}</li>)}
      </ul>}
    </div>
  )
}

export function Requests() {
  const [views, setViews] = useState([])
  const [active, setActive] = useState('')
  const [groups, setGroups] = useState([[emptyCondition()]])
  const [range, setRange] = useState({ start: '', end: '', min: '', max: '' })
  const [page, setPage] = useState(null)
  const [error, setError] = useState(null)

  const params = () => {
    const p = {}
    const f = filtersParam(groups)
    if (f) p.filters = f
    if (range.start) p.startTimestamp = toUnix(range.start)
    if (range.end) p.endTimestamp = toUnix(range.end)
    if (range.min) p.amountUsdMin = range.min
    if (range.max) p.amountUsdMax = range.max
    return p
  }
  const load = async (p, continuation) => {
    setError(null)
    try {
      const d = await get('/requests' + query({ ...p, continuation }))
      setPage((old) => ({ requests: (continuation && old ? old.requests : []).concat(d.requests || []), continuation: d.continuation, params: p }))
    } catch (err) { setError(err) }
  }
  const loadViews = () => get('/views').then((d) => setViews(d.views || []), setError)
  useEffect(() => { loadViews(); load({}) }, [])

  const apply = (e) => { e && e.preventDefault(); setActive(''); load(params()) }
  const openView = (v) => {
    setActive(v.id)
    const q = { ...v.query }
    const g = []
    // A view's plain parameters (status=failure) are shown as one condition each.
    for (const k of filterKeys.map((f) => f.key)) {
      if (q[k] !== undefined) g.push({ key: k, value: [].concat(q[k]).join(','), not: false })
    }
    const parsed = q.filters ? groupsOf([].concat(q.filters)[0]) : [[]]
    setGroups(parsed.map((grp) => g.concat(grp)).map((grp) => (grp.length ? grp : [emptyCondition()])))
    setRange({ start: fromUnix(q.startTimestamp), end: fromUnix(q.endTimestamp), min: q.amountUsdMin || '', max: q.amountUsdMax || '' })
    load(q)
  }
  const removeView = async (v) => {
    try { await del(`/views/${v.id}`); loadViews() } catch (err) { setError(err) }
  }
  const setCond = (gi, ci, c) => setGroups(groups.map((g, i) => (i !== gi ? g : g.map((x, j) => (j === ci ? c : x)))))
  const removeCond = (gi, ci) => {
    const next = groups.map((g, i) => (i !== gi ? g : g.filter((_, j) => j !== ci))).filter((g) => g.length)
    setGroups(next.length ? next : [[emptyCondition()]])
  }

  return (
    <section>
      <h1>Requests</h1>
      <Search />
      <nav class="views" aria-label="Views">
        <button type="button" aria-pressed={active === ''} onClick={() => { setActive(''); setGroups([[emptyCondition()]]); setRange({ start: '', end: '', min: '', max: '' }); load({}) }}>All</button>
        {views.map((v) => (
          <span class="view">
            <button type="button" aria-pressed={active === v.id} onClick={() => openView(v)}>
              <span class="swatch" data-colour={v.colour} ref={(el) => { if (el) el.style.background = v.colour }} />{v.name}
            </button>
            {!v.builtin && <button type="button" class="link" aria-label={`Delete the view ${v.name}`} onClick={() => removeView(v)}>×</button>}
          </span>))}
      </nav>
      <form class="filters" onSubmit={apply} aria-label="Filters">
        {groups.map((g, gi) => (
          <fieldset>
            <legend>{gi === 0 ? 'Where all of' : 'Or all of'}</legend>
            {g.map((c, ci) => <Condition c={c} onChange={(n) => setCond(gi, ci, n)} onRemove={() => removeCond(gi, ci)} />)}
            <button type="button" onClick={() => setGroups(groups.map((x, i) => (i === gi ? x.concat([emptyCondition()]) : x)))}>And…</button>
          </fieldset>))}
        <div class="row">
          <button type="button" onClick={() => setGroups(groups.concat([[emptyCondition()]]))}>Or…</button>
          <label>From <input type="datetime-local" value={range.start} onInput={(e) => setRange({ ...range, start: e.target.value })} /></label>
          <label>To <input type="datetime-local" value={range.end} onInput={(e) => setRange({ ...range, end: e.target.value })} /></label>
          <label>USD min <input inputMode="decimal" size={8} value={range.min} onInput={(e) => setRange({ ...range, min: e.target.value })} /></label>
          <label>USD max <input inputMode="decimal" size={8} value={range.max} onInput={(e) => setRange({ ...range, max: e.target.value })} /></label>
          <button type="submit">Apply filters</button>
        </div>
      </form>
      <SaveView params={params()} onSaved={(v) => { loadViews(); setActive(v.id) }} />
      <ErrorNote error={error} />
      {page && <>
        <table aria-label="Requests list">
          <thead><tr><th>Request</th><th>Status</th><th>Fail reason</th><th>Route</th><th>USD</th><th>Created</th></tr></thead>
          <tbody>{page.requests.map((r) => (
            <tr data-request={r.id}>
              <td><a href={'#/requests/' + r.id}><code>{r.id.slice(0, 10)}…{r.id.slice(-6)}</code></a></td>
              <td class="status">{r.status}</td>
              <td>{(r.data && r.data.failReason) || ''}</td>
              <td>{chainsOf(r)}</td>
              <td>{(r.data && r.data.currencyIn && r.data.currencyIn.amountUsd) ? `$${r.data.currencyIn.amountUsd}` : ''}</td>
              <td>{new Date(r.createdAt).toLocaleString()}</td>
            </tr>))}
          </tbody>
        </table>
        {page.requests.length === 0 && <p>No request matches.</p>}
        {page.continuation && <button type="button" onClick={() => load(page.params, page.continuation)}>More</button>}
      </>}
    </section>
  )
}

function FeeTable({ fees }) {
  const keys = [...new Set(Object.keys(fees.quoted || {}).concat(Object.keys(fees.actual || {})))]
  const show = amountText
  if (!keys.length) return <p>No fee recorded.</p>
  return (
    <table aria-label="Fees">
      <thead><tr><th>Fee</th><th>Quoted</th><th>Actual</th></tr></thead>
      <tbody>{keys.map((k) => <tr><td>{k}</td><td>{show((fees.quoted || {})[k])}</td><td>{show((fees.actual || {})[k])}</td></tr>)}</tbody>
    </table>
  )
}

export function RequestPage({ requestId }) {
  const [d, setD] = useState(null)
  const [error, setError] = useState(null)
  useEffect(() => { get('/requests/' + encodeURIComponent(requestId)).then(setD, setError) }, [requestId])
  return (
    <section>
      <p><a href="#/requests" onClick={(e) => { e.preventDefault(); go('requests') }}>← Requests</a></p>
      <h1>Request <code class="wrap">{requestId}</code></h1>
      <ErrorNote error={error} />
      {d && <>
        <dl class="facts">
          <dt>Status</dt><dd class="status">{d.request.status}</dd>
          {d.request.data && d.request.data.failReason && d.request.data.failReason !== 'N/A' && <><dt>Fail reason</dt><dd>{d.request.data.failReason}</dd></>}
          <dt>Route</dt><dd>{chainsOf(d.request)}</dd>
          <dt>User</dt><dd><code>{d.request.user}</code></dd>
          <dt>Recipient</dt><dd><code>{d.request.recipient}</code></dd>
          <dt>Created</dt><dd>{new Date(d.request.createdAt).toLocaleString()}</dd>
          {d.workflow && <><dt>Workflow</dt><dd><a href={d.workflow.url} rel="noopener noreferrer" target="_blank">{d.workflow.id}</a></dd></>}
        </dl>
        <h2>Transactions</h2>
        <table aria-label="Transactions">
          <thead><tr><th>Kind</th><th>Chain</th><th>Hash</th></tr></thead>
          <tbody>{(d.transactions || []).map((t) => (
            <tr><td>{t.kind}</td><td>{t.chainName || t.chainId}</td>
              <td>{t.explorerUrl ? <a href={t.explorerUrl} rel="noopener noreferrer" target="_blank"><code>{t.hash}</code></a> : <code>{t.hash}</code>}</td></tr>))}
          </tbody>
        </table>
        {(d.transactions || []).length === 0 && <p>No transaction yet.</p>}
        <h2>Fees, quoted and actual</h2>
        {/* The record's own fees (quoted, and actual once known) when the answer has no fees block. */}
        <FeeTable fees={d.fees || (d.request.data && d.request.data.fees) || {}} />
      </>}
    </section>
  )
}
