// The integrator dashboard (issue 39): a Preact app served by the API at /dashboard, talking to
// the JSON API under /dashboard/api (docs/dashboard.md). Pages are addressed by the URL's
// fragment (#/keys, #/requests/<id>, …), so that the server serves one page for all of them; a
// one-time sign-in link arrives as #link=<token>, read here and never sent to the server in a URL.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, del, get, post, put, setCSRF } from './api.js'
import { ErrorNote, go } from './ui.jsx'
import { Keys, Webhook } from './keys.jsx'
import { Team } from './team.jsx'
import { RequestPage, Requests } from './requests.jsx'
import { Observability, Balance } from './observability.jsx'
import './style.css'

// route is the page the fragment names: its name and its parts.
function route() {
  const h = location.hash.replace(/^#\/?/, '')
  if (h.startsWith('link=')) return { name: 'link', token: decodeURIComponent(h.slice(5)) }
  const parts = h.split('/').filter(Boolean).map(decodeURIComponent)
  return { name: parts[0] || 'keys', parts }
}

function useRoute() {
  const [r, setR] = useState(route())
  useEffect(() => {
    const on = () => setR(route())
    addEventListener('hashchange', on)
    return () => removeEventListener('hashchange', on)
  }, [])
  return r
}


function SignIn({ onSignedIn }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState(null)
  const submit = async (e) => {
    e.preventDefault()
    setError(null)
    try { onSignedIn(await post('/session', { email, password })) } catch (err) { setError(err) }
  }
  return (
    <main class="narrow">
      <h1>Sign in</h1>
      <form onSubmit={submit}>
        <label>Email <input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.target.value)} /></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.target.value)} /></label>
        <button type="submit">Sign in</button>
      </form>
      <ErrorNote error={error} />
    </main>
  )
}

// LinkSignIn posts a one-time link's token, then takes the fragment out of the address bar so
// that the token is not left in the history.
function LinkSignIn({ token, onSignedIn }) {
  const [error, setError] = useState(null)
  useEffect(() => {
    history.replaceState(null, '', location.pathname + '#/password')
    post('/session/link', { token }).then((m) => {
      onSignedIn(m)
      dispatchEvent(new HashChangeEvent('hashchange'))
    }, setError)
  }, [token])
  return (
    <main class="narrow">
      <h1>Signing in…</h1>
      <ErrorNote error={error} />
      {error && <p><a href="#/">Sign in with a password</a></p>}
    </main>
  )
}

function Password({ me }) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [done, setDone] = useState(false)
  const [error, setError] = useState(null)
  const submit = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      const body = { newPassword: next }
      if (me.user.hasPassword) body.currentPassword = current
      await put('/me/password', body)
      me.user.hasPassword = true
      setDone(true)
    } catch (err) { setError(err) }
  }
  return (
    <section>
      <h2>{me.user.hasPassword ? 'Change your password' : 'Set a password'}</h2>
      <form onSubmit={submit}>
        {me.user.hasPassword && <label>Current password <input type="password" name="currentPassword" autocomplete="current-password" value={current} onInput={(e) => setCurrent(e.target.value)} /></label>}
        <label>New password (12 characters or more) <input type="password" name="newPassword" autocomplete="new-password" minLength={12} required value={next} onInput={(e) => setNext(e.target.value)} /></label>
        <button type="submit">Save password</button>
      </form>
      {done && <p class="ok" role="status">Password saved.</p>}
      <ErrorNote error={error} />
    </section>
  )
}

const pages = [
  { name: 'keys', title: 'Keys' },
  { name: 'team', title: 'Team', roles: ['owner'] },
  { name: 'requests', title: 'Requests' },
  { name: 'observability', title: 'Observability' },
  { name: 'balance', title: 'Balance', roles: ['owner', 'developer'] },
  { name: 'password', title: 'Password' },
]

function Shell({ me, r, onSignOut }) {
  const allowed = pages.filter((p) => !p.roles || p.roles.includes(me.role))
  let page
  switch (r.name) {
    case 'keys':
      page = r.parts[2] === 'webhook' ? <Webhook me={me} keyId={r.parts[1]} /> : <Keys me={me} />
      break
    case 'team': page = <Team me={me} />; break
    case 'requests': page = r.parts[1] ? <RequestPage requestId={r.parts[1]} /> : <Requests me={me} />; break
    case 'observability': page = <Observability me={me} />; break
    case 'balance': page = <Balance />; break
    case 'password': page = <Password me={me} />; break
    default: page = <p>No such page.</p>
  }
  return (
    <>
      <header>
        <strong class="brand">intentd</strong>
        <nav aria-label="Dashboard">
          {allowed.map((p) => <a href={'#/' + p.name} aria-current={r.name === p.name ? 'page' : undefined}>{p.title}</a>)}
        </nav>
        <span class="who">{me.user.email} · {me.role} · {me.integrator.name}</span>
        <button type="button" onClick={onSignOut}>Sign out</button>
      </header>
      <main>{page}</main>
    </>
  )
}

function App() {
  const r = useRoute()
  const [me, setMe] = useState(undefined)
  const signedIn = (m) => { setCSRF(m.csrfToken); setMe(m) }
  useEffect(() => {
    if (r.name === 'link') return
    get('/me').then(signedIn, (err) => {
      if (err instanceof ApiError && err.status === 401) setMe(null)
      else setMe(null)
    })
  }, [])
  const signOut = async () => {
    try { await del('/session') } finally { setCSRF(''); setMe(null); go('') }
  }
  if (r.name === 'link') return <LinkSignIn token={r.token} onSignedIn={signedIn} />
  if (me === undefined) return <main class="narrow"><p>Loading…</p></main>
  if (me === null) return <SignIn onSignedIn={signedIn} />
  return <Shell me={me} r={r} onSignOut={signOut} />
}

render(<App />, document.getElementById('app'))
