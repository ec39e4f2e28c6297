// The gateway's version, from package.json (bundled into dist/ by the build).
import manifest from '../package.json' with { type: 'json' };

export const VERSION: string = manifest.version;
