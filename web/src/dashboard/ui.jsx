// Small pieces the pages share.

// go opens the page at path (a fragment route: keys, requests/<id>, …).
export function go(path) { location.hash = '#/' + path }

// ErrorNote shows an error as the API worded it.
export function ErrorNote({ error }) {
  if (!error) return null
  return <p class="error" role="alert">{error.message || String(error)}</p>
}
