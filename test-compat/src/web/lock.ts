import { dirname } from 'node:path';
import { build } from 'esbuild';

/**
 * Auth0's Lock as an app bundles it: auth0-lock's npm package ships only its CommonJS build
 * (lib/), so the test bundles it for the browser, unchanged, as a webpack or esbuild user would
 * (`Auth0LockPasswordless` on window, as Auth0's CDN build defines it). Lock reads
 * `require('auth0-js').default.version`, which auth0-js's ES module build has: the bundle takes
 * that build, as a bundler that prefers `module` does.
 */
export async function lockBrowserBundle(): Promise<string> {
  const auth0JsModule = require.resolve('auth0-js/dist/auth0.min.esm.js', { paths: [dirname(require.resolve('auth0-lock'))] });
  const result = await build({
    stdin: {
      // Through the package's main module, as `import { Auth0LockPasswordless } from 'auth0-lock'` loads it
      // (lib/passwordless alone meets a circular import of lib/core first and fails).
      contents: "var lock = require('auth0-lock'); window.Auth0LockPasswordless = lock.Auth0LockPasswordless;",
      resolveDir: __dirname,
    },
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    define: { 'process.env.NODE_ENV': '"production"', global: 'window' },
    plugins: [{ name: 'auth0-js-module', setup: (b) => void b.onResolve({ filter: /^auth0-js$/ }, () => ({ path: auth0JsModule })) }],
    logLevel: 'error',
  });
  return result.outputFiles[0]!.text;
}
