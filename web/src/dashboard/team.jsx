// The team page (owners): the integrator's users, an invitation that answers a one-time link to
// pass on, a role change and a removal.
import { useEffect, useState } from 'preact/hooks'
import { del, get, patch, post } from './api.js'
import { ErrorNote } from './ui.jsx'
import { Secret } from './keys.jsx'

const roles = ['owner', 'developer', 'support']

function UserRow({ u, me, onChanged, setError }) {
  const [confirming, setConfirming] = useState(false)
  const setRole = async (role) => {
    try { await patch(`/team/${u.id}`, { role }); onChanged() } catch (err) { setError(err); onChanged() }
  }
  const remove = async () => {
    try { await del(`/team/${u.id}`); onChanged() } catch (err) { setError(err) }
  }
  const self = u.id === me.user.id
  return (
    <tr data-user={u.id}>
      <td>{u.email}{self ? ' (you)' : ''}</td>
      <td><label class="sr-only" for={'role-' + u.id}>Role of {u.email}</label>
        <select id={'role-' + u.id} value={u.role} onChange={(e) => setRole(e.target.value)}>
          {roles.map((r) => <option value={r}>{r}</option>)}
        </select></td>
      <td>{u.hasPassword ? 'yes' : 'not yet'}</td>
      <td>{u.lastSignInAt ? new Date(u.lastSignInAt).toLocaleString() : '—'}</td>
      <td>{confirming
        ? <button type="button" class="danger" onClick={remove}>Confirm removal of {u.email}</button>
        : <button type="button" onClick={() => setConfirming(true)}>Remove</button>}</td>
    </tr>
  )
}

export function Team({ me }) {
  const [users, setUsers] = useState([])
  const [email, setEmail] = useState('')
  const [role, setRole] = useState('developer')
  const [link, setLink] = useState(null)
  const [error, setError] = useState(null)
  const load = () => get('/team').then((d) => setUsers(d.users || []), setError)
  useEffect(() => { load() }, [])
  const invite = async (e) => {
    e.preventDefault()
    setError(null)
    try {
      const d = await post('/team', { email, role })
      setLink({ email: d.user.email, url: location.origin + d.link.path })
      setEmail('')
      load()
    } catch (err) { setError(err) }
  }
  return (
    <section>
      <h1>Team</h1>
      <ErrorNote error={error} />
      <form class="row" onSubmit={invite} aria-label="Invite a user">
        <label>Email <input type="email" name="email" required value={email} onInput={(e) => setEmail(e.target.value)} /></label>
        <label>Role <select value={role} onChange={(e) => setRole(e.target.value)}>{roles.map((r) => <option value={r}>{r}</option>)}</select></label>
        <button type="submit">Invite</button>
      </form>
      {link && <Secret title={`The sign-in link for ${link.email}:`} value={link.url} note="Pass it on: it works once, within 30 minutes." />}
      <table>
        <thead><tr><th>Email</th><th>Role</th><th>Password set</th><th>Last sign-in</th><th></th></tr></thead>
        <tbody>{users.map((u) => <UserRow key={u.id} u={u} me={me} onChanged={load} setError={setError} />)}</tbody>
      </table>
    </section>
  )
}
