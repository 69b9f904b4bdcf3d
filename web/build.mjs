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

async function docs() {
  const dir = path.join(out, 'docs')
  const assets = path.join(dir, 'assets')
  const result = await build({
    absWorkingDir: here,
    entryPoints: { reference: 'src/docs/main.js' },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    outdir: assets,
    entryNames: '[name]-[hash]',
    // The viewer's bundle keeps its licence pointer; the licence itself is copied beside it.
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
  const page = (await readFile(path.join(here, 'src/docs/index.html'), 'utf8'))
    .replaceAll('{{JS}}', names.JS).replaceAll('{{CSS}}', names.CSS)
  await writeFile(path.join(dir, 'index.html'), page)
  const ui = path.join(here, 'node_modules/swagger-ui-dist')
  await copyFile(path.join(ui, 'LICENSE'), path.join(assets, 'swagger-ui.LICENSE.txt'))
  await copyFile(path.join(ui, 'NOTICE'), path.join(assets, 'swagger-ui.NOTICE.txt'))
  await copyFile(path.join(ui, 'swagger-ui-bundle.js.LICENSE.txt'), path.join(assets, 'swagger-ui-bundle.js.LICENSE.txt'))
}

// dashboard is the integrator dashboard: one Preact app (esbuild's automatic JSX runtime) with
// uPlot's charts, in one script and one stylesheet. Nothing is inlined into the page, so that its
// policy allows scripts and styles from the service only.
async function dashboard() {
  const dir = path.join(out, 'dashboard')
  const assets = path.join(dir, 'assets')
  const result = await build({
    absWorkingDir: here,
    entryPoints: { dashboard: 'src/dashboard/main.jsx' },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    jsx: 'automatic',
    jsxImportSource: 'preact',
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
  const page = (await readFile(path.join(here, 'src/dashboard/index.html'), 'utf8'))
    .replaceAll('{{JS}}', names.JS).replaceAll('{{CSS}}', names.CSS)
  await writeFile(path.join(dir, 'index.html'), page)
  await copyFile(path.join(here, 'node_modules/preact/LICENSE'), path.join(assets, 'preact.LICENSE.txt'))
  await copyFile(path.join(here, 'node_modules/uplot/LICENSE'), path.join(assets, 'uplot.LICENSE.txt'))
}

// A fresh tree each time, so that a file no longer built does not linger.
await rm(out, { recursive: true, force: true })
await mkdir(out, { recursive: true })
await docs()
await dashboard()
