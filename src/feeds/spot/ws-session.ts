// One WebSocket connection to an exchange, on Node's built-in client: subscribe on open, pass frames
// on, send keep-alives where the exchange needs asking, and give up on a socket that falls silent.

export type WsSessionOptions = {
  url: string
  /** frames sent once the socket opens */
  subscribe: readonly string[]
  /** a frame sent every `everyMs` while open, for exchanges that send nothing unprompted; else null */
  keepAlive: { message: string; everyMs: number } | null
  /** a socket (connecting or open) that delivers nothing for this long is treated as dead */
  silenceMs: number
  onOpen(): void
  onFrame(text: string): void
  /** called once when the socket ends by itself (closed, failed, silent); never after end() */
  onEnd(reason: string): void
}

export type WsSession = {
  /** closes the socket without calling onEnd; resolves once it has closed (or after a short bound) */
  end(): Promise<void>
}

const CLOSE_WAIT_MS = 1_000

export function openWsSession(opts: WsSessionOptions): WsSession {
  const ws = new WebSocket(opts.url)
  ws.binaryType = 'arraybuffer'
  const listeners = new AbortController()
  const decoder = new TextDecoder()
  let ended = false
  let silenceTimer: NodeJS.Timeout | undefined
  let keepAliveTimer: NodeJS.Timeout | undefined

  const closed = new Promise<void>((resolve) => {
    ws.addEventListener('close', () => resolve(), { once: true })
  })

  const stop = (): void => {
    ended = true
    clearTimeout(silenceTimer)
    clearInterval(keepAliveTimer)
    listeners.abort()
    try {
      ws.close()
    } catch {
      // already closing
    }
  }
  const fail = (reason: string): void => {
    if (ended) return
    stop()
    opts.onEnd(reason)
  }
  // armed from the start, so a handshake that hangs counts as silence too
  const armSilence = (): void => {
    clearTimeout(silenceTimer)
    silenceTimer = setTimeout(() => fail(`no message for ${opts.silenceMs} ms`), opts.silenceMs)
  }

  const on = { signal: listeners.signal }
  ws.addEventListener(
    'open',
    () => {
      for (const frame of opts.subscribe) ws.send(frame)
      const keepAlive = opts.keepAlive
      if (keepAlive) keepAliveTimer = setInterval(() => ws.send(keepAlive.message), keepAlive.everyMs)
      armSilence()
      opts.onOpen()
    },
    on,
  )
  ws.addEventListener(
    'message',
    (e: MessageEvent) => {
      armSilence()
      opts.onFrame(typeof e.data === 'string' ? e.data : decoder.decode(e.data as ArrayBuffer))
    },
    on,
  )
  ws.addEventListener('error', () => fail('socket error'), on)
  ws.addEventListener('close', (e: CloseEvent) => fail(`closed by peer (code ${e.code})`), on)
  armSilence()

  return {
    end: async () => {
      if (!ended) stop()
      if (ws.readyState === WebSocket.CLOSED) return
      let bound: NodeJS.Timeout | undefined
      await Promise.race([closed, new Promise<void>((r) => (bound = setTimeout(r, CLOSE_WAIT_MS)))])
      clearTimeout(bound)
    },
  }
}
