import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Remembers every registered route so that an unmatched request can be told apart:
 * a known path with another method gets 405 (with Allow), anything else 404.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });

  add(method: string | string[], url: string): void {
    for (const one of Array.isArray(method) ? method : [method]) {
      if (!(METHODS as readonly string[]).includes(one)) continue;
      try {
        this.router.on(one as (typeof METHODS)[number], url, () => undefined);
      } catch {
        // The same route registered twice (e.g. by two plugins) is harmless here.
      }
    }
  }

  /** Methods that would have matched this path; empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    const pathOnly = path.split('?')[0];
    return METHODS.filter((method) => this.router.find(method, pathOnly) !== null);
  }
}
