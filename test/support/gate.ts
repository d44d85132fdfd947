// A gate for fakes: while held, every pass() waits until the opener returned by hold() runs, so a
// test can keep a store read in flight and observe what happens meanwhile.
export type Gate = {
  /** Resolves at once while the gate is open, else when it opens. */
  pass(): Promise<void>
  /** Closes the gate; call the returned function to open it again. */
  hold(): () => void
}

export function createGate(): Gate {
  let held: Promise<void> | undefined
  return {
    pass: async () => {
      await held
    },
    hold() {
      let open!: () => void
      held = new Promise((r) => {
        open = r
      })
      return () => {
        held = undefined
        open()
      }
    },
  }
}
