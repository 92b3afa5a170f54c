import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { defineConfig, type Plugin } from 'vite';

const require = createRequire(import.meta.url);

/**
 * auth0-spa-js renews tokens with refresh tokens inside a Web Worker, which it would otherwise
 * start from a blob: URL (a CSP `worker-src blob:`). The package ships the worker as a file: it
 * goes into the build beside the app, so the console's policy can stay `worker-src 'self'`.
 */
function auth0TokenWorker(): Plugin {
  return {
    name: 'auth0-token-worker',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'assets/auth0-token-worker.js',
        source: readFileSync(require.resolve('@auth0/auth0-spa-js/dist/auth0-spa-js.worker.production.js'), 'utf8'),
      });
    },
  };
}

export default defineConfig({
  // Relative URLs: the same build works at identity's /console/ and at any other path or host.
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Nothing inline: the CSP allows script from this origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  plugins: [auth0TokenWorker()],
});
