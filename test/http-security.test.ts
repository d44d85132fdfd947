import { runSecuritySuite } from './support/security-suite.ts'

runSecuritySuite({
  name: 'GET /v1/contests/active',
  path: ({ series }) => `/v1/contests/active?series=${series}`,
})
runSecuritySuite({ name: 'GET /v1/contests/{ticker}', path: ({ ticker }) => `/v1/contests/${ticker}` })
runSecuritySuite({ name: 'GET /v1/contests', path: ({ series }) => `/v1/contests?series=${series}` })
runSecuritySuite({
  name: 'GET /v1/stream/contests',
  path: ({ series }) => `/v1/stream/contests?series=${series}`,
})
