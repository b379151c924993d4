import FindMyWay from 'find-my-way';
import { MAX_PARAM_LENGTH } from './framework-errors';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Remembers every registered route so that an unmatched request can be told apart:
 * a known path with another method gets 405 (with Allow), anything else 404.
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH });
  private readonly registered: Array<{ method: string; url: string }> = [];

  add(method: string | string[], url: string): void {
    for (const one of Array.isArray(method) ? method : [method]) {
      if (!(METHODS as readonly string[]).includes(one)) continue;
      this.registered.push({ method: one, url });
      try {
        this.router.on(one as (typeof METHODS)[number], url, () => undefined);
      } catch {
        // The same route registered twice (e.g. by two plugins) is harmless here.
      }
    }
  }

  /** Every route registered with one of the methods above, in registration order (the access tests walk them). */
  list(): ReadonlyArray<{ method: string; url: string }> {
    return this.registered;
  }

  /**
   * The methods of the route this path names; empty when the path is unknown. Where a literal segment and a
   * parameter both match (`persons/bulk_delete/` against `persons/:id/`), the path names the literal route, as
   * in Django REST framework, whose routers list a viewset's list actions before its detail routes: PostHog
   * answers `PATCH persons/bulk_delete/` with 405 (Allow: POST), not with a lookup of a person "bulk_delete".
   */
  allowedMethods(path: string): string[] {
    const pathOnly = path.split('?')[0];
    let fewestParams = Infinity;
    let methods: string[] = [];
    for (const method of METHODS) {
      const match = this.router.find(method, pathOnly);
      if (!match) continue;
      const params = Object.keys(match.params).length;
      if (params < fewestParams) [fewestParams, methods] = [params, [method]];
      else if (params === fewestParams) methods.push(method);
    }
    return methods;
  }
}
