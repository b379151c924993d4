import { RouteTable } from '../../src/common/http/route-table';
import { MAX_PARAM_LENGTH } from '../../src/common/http/framework-errors';

function tableWith(routes: Array<[string | string[], string]>): RouteTable {
  const table = new RouteTable();
  for (const [method, url] of routes) table.add(method, url);
  return table;
}

describe(RouteTable.name, () => {
  const projects = () =>
    tableWith([
      ['GET', '/api/projects/'],
      ['POST', '/api/projects/'],
      ['GET', '/api/projects/:id'],
      ['PATCH', '/api/projects/:id'],
      ['DELETE', '/api/projects/:id'],
      ['GET', '/api/projects/:project_id/keys/:key_id/'],
    ]);

  it('lists the methods registered for a path with a parameter', () => {
    const table = tableWith([
      ['GET', '/api/projects/:id'],
      ['PATCH', '/api/projects/:id'],
    ]);
    expect(table.allowedMethods('/api/projects/5/')).toEqual(['GET', 'PATCH']);
  });

  it('lists methods in a fixed order whatever the registration order', () => {
    const table = tableWith([
      ['DELETE', '/x'],
      ['PATCH', '/x'],
      ['POST', '/x'],
      ['PUT', '/x'],
      ['GET', '/x'],
    ]);
    expect(table.allowedMethods('/x')).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  });

  it('accepts an array of methods in one call', () => {
    const table = tableWith([[['GET', 'PUT'], '/api/things/:id/']]);
    expect(table.allowedMethods('/api/things/abc/')).toEqual(['GET', 'PUT']);
  });

  it('ignores a missing trailing slash', () => {
    expect(projects().allowedMethods('/api/projects')).toEqual(['GET', 'POST']);
  });

  it('ignores an extra trailing slash', () => {
    expect(projects().allowedMethods('/api/projects/7/')).toEqual(['GET', 'PATCH', 'DELETE']);
  });

  it('ignores the query string', () => {
    expect(projects().allowedMethods('/api/projects/7/?limit=10&offset=20')).toEqual(['GET', 'PATCH', 'DELETE']);
  });

  it('ignores the query string of a path without a trailing slash', () => {
    expect(projects().allowedMethods('/api/projects?x=/api/other')).toEqual(['GET', 'POST']);
  });

  it('ignores duplicate slashes', () => {
    expect(projects().allowedMethods('//api//projects//7')).toEqual(['GET', 'PATCH', 'DELETE']);
  });

  it('matches several parameters', () => {
    expect(projects().allowedMethods('/api/projects/1/keys/abc')).toEqual(['GET']);
  });

  it('returns [] for an unknown path', () => {
    expect(projects().allowedMethods('/api/nope/')).toEqual([]);
  });

  it('returns [] for a path with an extra segment', () => {
    expect(projects().allowedMethods('/api/projects/7/extra/')).toEqual([]);
  });

  it('returns [] for a path missing a parameter value', () => {
    expect(projects().allowedMethods('/api/projects/1/keys/')).toEqual([]);
  });

  it('returns [] for an empty table', () => {
    expect(new RouteTable().allowedMethods('/')).toEqual([]);
  });

  it('ignores HEAD and OPTIONS registrations', () => {
    const table = tableWith([
      ['HEAD', '/health'],
      ['OPTIONS', '/health'],
      [['HEAD', 'OPTIONS'], '/ready'],
    ]);
    expect([table.allowedMethods('/health'), table.allowedMethods('/ready')]).toEqual([[], []]);
  });

  it('keeps the real methods of a route that also has HEAD and OPTIONS', () => {
    const table = tableWith([[['GET', 'HEAD', 'OPTIONS'], '/health']]);
    expect(table.allowedMethods('/health')).toEqual(['GET']);
  });

  it('tolerates the same route being registered twice', () => {
    const table = new RouteTable();
    table.add('GET', '/dup');
    expect(() => table.add('GET', '/dup')).not.toThrow();
    expect(table.allowedMethods('/dup')).toEqual(['GET']);
  });

  it('tolerates a route that differs only by trailing slash', () => {
    const table = new RouteTable();
    table.add('GET', '/dup');
    expect(() => table.add(['GET', 'POST'], '/dup/')).not.toThrow();
    expect(table.allowedMethods('/dup/')).toEqual(['GET', 'POST']);
  });

  it('names only the literal route where a literal segment and a parameter both match', () => {
    const table = tableWith([
      ['GET', '/api/projects/:id'],
      ['POST', '/api/projects/current'],
    ]);
    expect(table.allowedMethods('/api/projects/current')).toEqual(['POST']);
    expect(table.allowedMethods('/api/projects/7')).toEqual(['GET']);
  });

  it('lists every method of the literal route and none of the parametric ones', () => {
    const table = tableWith([
      ['GET', '/api/projects/:project_id/persons/:id/'],
      ['PATCH', '/api/projects/:project_id/persons/:id/'],
      ['DELETE', '/api/projects/:project_id/persons/:id/'],
      ['POST', '/api/projects/:project_id/persons/bulk_delete/'],
      ['GET', '/api/projects/:project_id/persons/activity/'],
    ]);
    expect(table.allowedMethods('/api/projects/1/persons/bulk_delete/')).toEqual(['POST']);
    expect(table.allowedMethods('/api/projects/1/persons/activity/')).toEqual(['GET']);
    expect(table.allowedMethods('/api/projects/1/persons/12/')).toEqual(['GET', 'PATCH', 'DELETE']);
  });

  it('matches parameters as long as the HTTP router takes them', () => {
    expect(projects().allowedMethods(`/api/projects/${'a'.repeat(MAX_PARAM_LENGTH)}/`)).toEqual(['GET', 'PATCH', 'DELETE']);
  });

  it('prefers the literal segment wherever it sits in the path', () => {
    const table = tableWith([
      ['GET', '/api/:scope/things/'],
      ['POST', '/api/projects/things/'],
    ]);
    expect(table.allowedMethods('/api/projects/things/')).toEqual(['POST']);
    expect(table.allowedMethods('/api/orgs/things/')).toEqual(['GET']);
  });
});
