// Builds the browser assets intentd embeds (web/web.go) into dist/, or into the directory given
// as the first argument (web_test.go builds into a temporary one and compares it with the
// committed dist/). Each tree under dist/ is served by the binary as it is:
//
//   dist/docs/index.html        the API reference's page; the service fills in {{TITLE}} and
//                               {{BASE}} (the path it serves the reference under)
//   dist/docs/assets/…          its script and stylesheet, named by their content's hash so
//                               that they can be cached for good, and the viewer's licence
//   dist/dashboard/index.html   the integrator dashboard's page (Preact, uPlot), served as it is
//   dist/dashboard/assets/…     its script and stylesheet, named by their content's hash
//
// The output depends only on the sources here and the packages pinned in package-lock.json:
// esbuild's output is deterministic, and nothing here reads the clock or the environment.
import { build } from 'esbuild'
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const out = path.resolve(process.argv[2] || path.join(here, 'dist'))

// app builds one app into out/<name>: src/<name>/<entry> bundled into one script and one
// stylesheet under assets/, named by their content's hash, the page src/<name>/index.html naming
// them ({{JS}}, {{CSS}}), and the licences of its packages copied beside them (licences: file in
// node_modules -> name under assets/). Nothing is inlined into the page, so that its policy
// allows scripts and styles from the service only; the bundle keeps its licence pointers.
async function app(name, entry, licences, options = {}) {
  const dir = path.join(out, name)
  const assets = path.join(dir, 'assets')
  const result = await build({
    absWorkingDir: here,
    entryPoints: { [options.bundleName ?? name]: `src/${name}/${entry}` },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    ...options.esbuild,
    outdir: assets,
    entryNames: '[name]-[hash]',
    legalComments: 'inline',
    metafile: true,
    logLevel: 'warning',
  })
  const names = {}
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint) names.JS = path.basename(file)
    else if (file.endsWith('.css')) names.CSS = path.basename(file)
  }
  if (!names.JS || !names.CSS) throw new Error(`esbuild wrote ${Object.keys(result.metafile.outputs)}`)
  const page = (await readFile(path.join(here, `src/${name}/index.html`), 'utf8'))
    .replaceAll('{{JS}}', names.JS).replaceAll('{{CSS}}', names.CSS)
  await writeFile(path.join(dir, 'index.html'), page)
  for (const [from, to] of Object.entries(licences)) {
    await copyFile(path.join(here, 'node_modules', from), path.join(assets, to))
  }
}

// A fresh tree each time, so that a file no longer built does not linger.
await rm(out, { recursive: true, force: true })
await mkdir(out, { recursive: true })
// The API reference's viewer (Swagger UI).
await app('docs', 'main.js', {
  'swagger-ui-dist/LICENSE': 'swagger-ui.LICENSE.txt',
  'swagger-ui-dist/NOTICE': 'swagger-ui.NOTICE.txt',
  'swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt': 'swagger-ui-bundle.js.LICENSE.txt',
}, { bundleName: 'reference' })
// The integrator dashboard: one Preact app (esbuild's automatic JSX runtime) with uPlot's charts.
await app('dashboard', 'main.jsx', {
  'preact/LICENSE': 'preact.LICENSE.txt',
  'uplot/LICENSE': 'uplot.LICENSE.txt',
}, { esbuild: { jsx: 'automatic', jsxImportSource: 'preact' } })
