// fetch against a test world, with every JSON or problem body checked against the OpenAPI document
// the app serves, so each suite doubles as a contract test.
import type { FastifyInstance } from 'fastify'
import { type ContractChecker, createContractChecker } from './openapi-contract.ts'

export type ApiResponse = {
  status: number
  headers: Headers
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  json: any
}

export type RequestOptions = {
  method?: string
  /** sent as `Authorization: Bearer <key>` */
  key?: string
  headers?: Record<string, string>
}

export type ApiClient = {
  request(path: string, opts?: RequestOptions): Promise<ApiResponse>
  get(path: string, key?: string, headers?: Record<string, string>): Promise<ApiResponse>
  readonly contract: ContractChecker
}

export function createApiClient(world: { baseUrl: string; app: FastifyInstance }): ApiClient {
  // The document as the app serves it (GET /v1/openapi.json sends this object's JSON); read in
  // process so that fetching it costs no rate-limit token in tests that count them.
  const contract = createContractChecker(JSON.parse(JSON.stringify(world.app.swagger())))
  async function request(path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const method = opts.method ?? 'GET'
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`
    const res = await fetch(`${world.baseUrl}${path}`, { method, headers })
    const text = await res.text()
    const type = res.headers.get('content-type')
    contract.check(method, path, res.status, type, text)
    const isJson = type !== null && /^application\/(problem\+)?json/.test(type) && text !== ''
    return { status: res.status, headers: res.headers, text, json: isJson ? JSON.parse(text) : undefined }
  }
  return {
    request,
    get: (path, key, headers) => request(path, { key, headers }),
    contract,
  }
}
