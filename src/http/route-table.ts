// The routes as the app registered them, to answer a path no route serves: which methods a path has
// (a 405 names them), and the route nearest to a path that has none (a 404's hint). Built once from the
// registered routes; a request's path is split and compared segment by segment, never made into a
// pattern, and only paths of a bounded length are compared.

/** A path longer than this, or with more segments, gets no hint (ours are under 100 characters). */
const MAX_PATH_LENGTH = 512;
const MAX_SEGMENTS = 16;
/** How many leading segments a hint may drop (a base path of one or two segments). */
const MAX_DROPPED = 2;

/** A version segment: v1, v2, 1.0, 2.0. Tested on a segment, never built from one. */
const VERSION = /^v?\d{1,3}(?:\.\d{1,3})?$/i;

type Segment = { readonly param: string } | { readonly text: string; readonly folded: string };

interface Route {
  readonly url: string;
  readonly segments: readonly Segment[];
  /** `/docs/static/*`: any rest of the path, empty included. */
  readonly wildcard: boolean;
  readonly methods: Set<string>;
  /** Every method's route answers errors in the OAuth shape. */
  oauth: boolean;
  readonly order: number;
}

/** Why the nearest route differs from the path asked for; each becomes a few words of the hint. */
type Difference =
  | { readonly kind: 'trailing-slash' | 'empty-segment' | 'case' | 'no-base-path' }
  | { readonly kind: 'base-path' | 'outside-base-path'; readonly basePath: string }
  | { readonly kind: 'leading-segments'; readonly count: number }
  | { readonly kind: 'missing-segment' | 'version'; readonly segment: string };

export interface NearestRoute {
  /** Our route's path, parameters as `{name}` (`/psd2/v1/consents/{consentId}`). */
  readonly path: string;
  /** The methods to name: the request's when the route takes it, else the route's own. */
  readonly methods: readonly string[];
  readonly differences: readonly Difference[];
}

function segmentOf(part: string): Segment {
  if (part.startsWith(':')) return { param: part.slice(1) };
  return { text: part, folded: part.toLowerCase() };
}

function shownSegment(segment: Segment): string {
  return 'param' in segment ? `{${segment.param}}` : segment.text;
}

/** The segments of a request's path, query left out: `/a/b/` is ['a', 'b', '']. */
function pathSegments(url: string): string[] | undefined {
  const end = url.indexOf('?');
  const path = end === -1 ? url : url.slice(0, end);
  if (path.length > MAX_PATH_LENGTH || !path.startsWith('/')) return undefined;
  const segments = path.slice(1).split('/', MAX_SEGMENTS + 1);
  return segments.length > MAX_SEGMENTS ? undefined : segments;
}

/**
 * Whether `input` is a path of `route`, with `skip` (an index of the route's segments, or -1) left out
 * of the route: a parameter takes any non-empty segment; `fold` compares the rest case-insensitively.
 */
function matches(input: readonly string[], route: Route, skip: number, fold: boolean): boolean {
  const length = route.segments.length - (skip === -1 ? 0 : 1);
  if (route.wildcard ? input.length <= length : input.length !== length) return false;
  let at = 0;
  for (let index = 0; index < route.segments.length; index++) {
    if (index === skip) continue;
    const segment = route.segments[index]!;
    const part = input[at++]!;
    if ('param' in segment) {
      if (part === '') return false;
    } else if (fold ? part.toLowerCase() !== segment.folded : part !== segment.text) return false;
  }
  return true;
}

export class RouteTable {
  readonly #routes = new Map<string, Route>();
  /** The routes a hint may name (no wildcard), by their number of segments. */
  #byLength: Map<number, Route[]> | undefined;

  constructor(readonly basePath: string) {}

  add(method: string, url: string, oauth: boolean): void {
    let route = this.#routes.get(url);
    if (route === undefined) {
      const parts = url.slice(1).split('/');
      const wildcard = parts.at(-1) === '*';
      route = {
        url,
        segments: (wildcard ? parts.slice(0, -1) : parts).map(segmentOf),
        wildcard,
        methods: new Set(),
        oauth,
        order: this.#routes.size,
      };
      this.#routes.set(url, route);
      this.#byLength = undefined;
    }
    route.methods.add(method);
    route.oauth &&= oauth;
  }

  /** The methods of the routes that serve this path as it is, sorted; none: the path has no route. */
  methodsAt(url: string): { readonly methods: readonly string[]; readonly oauth: boolean } {
    const input = pathSegments(url);
    const methods = new Set<string>();
    let oauth = true;
    if (input !== undefined) {
      for (const route of this.#routes.values()) {
        if (!matches(input, route, -1, false)) continue;
        for (const method of route.methods) methods.add(method);
        oauth &&= route.oauth;
      }
    }
    return { methods: [...methods].sort(), oauth: oauth && methods.size > 0 };
  }

  /**
   * The route nearest to a path that has none: the same path but for a trailing slash, an empty
   * segment, letter case, the base path (missing, extra or another), a missing segment or another
   * version. The fewest differences win, then a route that takes the request's method, then the first
   * registered. None within those differences: undefined.
   */
  nearest(url: string, method: string): NearestRoute | undefined {
    const asked = pathSegments(url);
    if (asked === undefined) return undefined;
    const cleaned: Difference[] = [];
    const trailing = asked.length > 1 && asked.at(-1) === '';
    if (trailing) cleaned.push({ kind: 'trailing-slash' });
    if ((trailing ? asked.slice(0, -1) : asked).includes('') && asked.length > 1)
      cleaned.push({ kind: 'empty-segment' });
    const kept = asked.filter((part) => part !== '');
    // `/` is the one path whose only segment is empty.
    const input = kept.length === 0 ? [''] : kept;
    let best: { route: Route; differences: Difference[]; rank: readonly number[] } | undefined;
    for (const { segments, differences } of this.#prefixVariants(input)) {
      for (const [route, found] of this.#candidates(segments)) {
        const all = [...cleaned, ...differences, ...found];
        if (all.length === 0) continue;
        const rank = [all.length, this.#takes(route, method) ? 0 : 1, route.order];
        if (best === undefined || isBefore(rank, best.rank)) best = { route, differences: all, rank };
      }
    }
    if (best === undefined) return undefined;
    const { route } = best;
    const methods = this.#takes(route, method)
      ? [method]
      : [...route.methods].filter((each) => each !== 'HEAD' || route.methods.size === 1).sort();
    return {
      path: `/${route.segments.map(shownSegment).join('/')}`,
      methods,
      differences: best.differences,
    };
  }

  #takes(route: Route, method: string): boolean {
    return route.methods.has(method);
  }

  /** The path as asked, under the base path, and without one or two leading segments (then under it). */
  #prefixVariants(input: readonly string[]): { segments: string[]; differences: Difference[] }[] {
    const base = this.basePath === '' ? [] : this.basePath.slice(1).split('/');
    const underBase: Difference = { kind: 'base-path', basePath: this.basePath };
    const variants = [{ segments: [...input], differences: [] as Difference[] }];
    const startsWithBase = base.every((part, index) => input[index] === part);
    if (base.length > 0 && !startsWithBase)
      variants.push({ segments: [...base, ...input], differences: [underBase] });
    for (let count = 1; count <= Math.min(MAX_DROPPED, input.length - 1); count++) {
      const rest = input.slice(count);
      if (base.length === 0) {
        variants.push({ segments: rest, differences: [{ kind: 'no-base-path' }] });
        continue;
      }
      // The base path dropped: the routes outside it (metrics); another dropped: the base path instead.
      const droppedBase = startsWithBase && count === base.length;
      variants.push({
        segments: rest,
        differences: [
          droppedBase
            ? { kind: 'outside-base-path', basePath: this.basePath }
            : { kind: 'leading-segments', count },
        ],
      });
      if (!droppedBase) variants.push({ segments: [...base, ...rest], differences: [underBase] });
    }
    return variants;
  }

  /** The routes that serve `input` but for letter case, one missing segment or another version. */
  *#candidates(input: readonly string[]): Generator<[Route, Difference[]]> {
    const byLength = this.#lengths();
    for (const route of byLength.get(input.length) ?? []) {
      if (matches(input, route, -1, false)) yield [route, []];
      else if (matches(input, route, -1, true)) yield [route, [{ kind: 'case' }]];
      else {
        const version = otherVersion(input, route);
        if (version !== undefined) yield [route, [{ kind: 'version', segment: version }]];
      }
    }
    for (const route of byLength.get(input.length + 1) ?? []) {
      // A missing base path is the base path's difference (#prefixVariants), not a segment's.
      const first =
        this.basePath !== '' && route.url.startsWith(`${this.basePath}/`)
          ? this.basePath.split('/').length - 1
          : 0;
      for (let skip = first; skip < route.segments.length; skip++) {
        const segment = route.segments[skip]!;
        // Only a version is missed so: any segment before a parameter would match too loosely.
        if ('param' in segment || !VERSION.test(segment.text)) continue;
        const missing: Difference = { kind: 'missing-segment', segment: segment.text };
        if (matches(input, route, skip, false)) yield [route, [missing]];
        else if (matches(input, route, skip, true)) yield [route, [missing, { kind: 'case' }]];
        else continue;
        break;
      }
    }
  }

  #lengths(): Map<number, Route[]> {
    if (this.#byLength === undefined) {
      this.#byLength = new Map();
      for (const route of this.#routes.values()) {
        // `/docs/static/*` takes any path, `/openbanking/` is `/openbanking` again: neither is a hint.
        if (route.wildcard || (route.url.endsWith('/') && route.url !== '/')) continue;
        const same = this.#byLength.get(route.segments.length);
        if (same === undefined) this.#byLength.set(route.segments.length, [route]);
        else same.push(route);
      }
    }
    return this.#byLength;
  }
}

/** The route's version segment where `input` has another version and is otherwise the route's path. */
function otherVersion(input: readonly string[], route: Route): string | undefined {
  let found: string | undefined;
  for (let index = 0; index < route.segments.length; index++) {
    const segment = route.segments[index]!;
    const part = input[index]!;
    if ('param' in segment) {
      if (part === '') return undefined;
    } else if (part !== segment.text) {
      if (found !== undefined || !VERSION.test(segment.text) || !VERSION.test(part)) return undefined;
      found = segment.text;
    }
  }
  return found;
}

function isBefore(rank: readonly number[], other: readonly number[]): boolean {
  for (let index = 0; index < rank.length; index++) {
    if (rank[index] !== other[index]) return rank[index]! < other[index]!;
  }
  return false;
}

/** The hint's words for a difference: what our route has that the path asked for has not. */
export function describeDifference(difference: Difference): string {
  switch (difference.kind) {
    case 'trailing-slash':
      return 'without the trailing slash';
    case 'empty-segment':
      return 'without the empty segment (//)';
    case 'case':
      return 'paths are case-sensitive';
    case 'no-base-path':
      return 'this gateway serves its API with no base path';
    case 'base-path':
      return `this gateway serves its API under ${difference.basePath}`;
    case 'outside-base-path':
      return `not under the base path ${difference.basePath}`;
    case 'leading-segments':
      return difference.count === 1
        ? 'without the first segment'
        : `without the first ${difference.count} segments`;
    case 'missing-segment':
      return `with the version segment ${difference.segment}`;
    case 'version':
      return `its version is ${difference.segment}`;
  }
}
