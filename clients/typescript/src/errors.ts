// The one error the client throws for an answer it will not retry: the HTTP status and, when the
// service sent one, its problem document (RFC 9457). A 429 arrives here only once the bounded
// retries are spent, with the last Retry-After the service gave.
import type { InvalidParameterProblem, Problem } from './generated/api-types.ts'

export class ApiError extends Error {
  readonly status: number
  /** a 400's names each refused parameter: `'invalid_params' in problem` tells them apart */
  readonly problem: Problem | InvalidParameterProblem | null
  /** seconds the service asked to wait (429), else null */
  readonly retryAfterS: number | null

  constructor(
    status: number,
    problem: Problem | InvalidParameterProblem | null,
    retryAfterS: number | null = null,
  ) {
    super(problem ? `${status} ${problem.title}: ${problem.detail}` : `HTTP ${status}`)
    this.name = 'ApiError'
    this.status = status
    this.problem = problem
    this.retryAfterS = retryAfterS
  }
}

/** The problem document of a non-2xx answer, or null when the body is not one. */
export async function problemOf(res: Response): Promise<Problem | InvalidParameterProblem | null> {
  try {
    const body = (await res.json()) as Partial<Problem>
    return typeof body.title === 'string' && typeof body.status === 'number'
      ? (body as Problem | InvalidParameterProblem)
      : null
  } catch {
    return null
  }
}
