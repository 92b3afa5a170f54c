/** Every route an Express 5 app or router declares, read from its layers (mounted routers included). */
export interface DeclaredRoute {
  /** Lower case, as Express keeps it: get, post, ... */
  method: string;
  /** The full path as declared, e.g. /api/v2/connections/:id. */
  path: string;
}

interface Layer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function join(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

export function declaredRoutes(appOrRouter: unknown, prefix = ''): DeclaredRoute[] {
  const router = (appOrRouter as { router?: { stack: Layer[] }; stack?: Layer[] }).router ?? appOrRouter;
  const stack = (router as { stack?: Layer[] }).stack ?? [];
  return stack.flatMap((layer): DeclaredRoute[] => {
    if (layer.route) {
      const path = join(prefix, layer.route.path);
      return Object.keys(layer.route.methods)
        .filter((method) => layer.route!.methods[method] && method !== '_all')
        .map((method) => ({ method, path }));
    }
    if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '';
      return declaredRoutes(layer.handle, join(prefix, mount));
    }
    return [];
  });
}
