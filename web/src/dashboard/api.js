// The dashboard's JSON API (docs/dashboard.md): every call is same-origin with the session cookie,
// and every change carries the session's CSRF token, which GET /me and the sign-ins give.
let csrf = ''

export function setCSRF(token) { csrf = token || '' }

// ApiError is an answer other than 2xx: the API's {message, errorCode} and its status.
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`)
    this.status = status
    this.code = body && body.errorCode
  }
}

export async function call(method, path, body) {
  const headers = { Accept: 'application/json' }
  if (method !== 'GET') headers['X-CSRF-Token'] = csrf
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetch('/dashboard/api' + path, {
    method, headers, credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status === 204) return null
  let data = null
  const text = await res.text()
  if (text) {
    try { data = JSON.parse(text) } catch { data = { message: text } }
  }
  if (!res.ok) throw new ApiError(res.status, data)
  return data
}

export const get = (path) => call('GET', path)
export const post = (path, body) => call('POST', path, body === undefined ? {} : body)
export const put = (path, body) => call('PUT', path, body)
export const patch = (path, body) => call('PATCH', path, body)
export const del = (path) => call('DELETE', path)

// query builds a query string from an object of string or string[] values, leaving empty ones out.
export function query(params) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params || {})) {
    for (const one of [].concat(v)) if (one !== undefined && one !== null && one !== '') q.append(k, String(one))
  }
  const s = q.toString()
  return s ? '?' + s : ''
}
