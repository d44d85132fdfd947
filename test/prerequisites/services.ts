// What a service the step started must offer: its URL for the tests, and a way to stop it and remove
// its files, asynchronously at the run's end and synchronously from an exit handler.
export type PrivateService = {
  url: string
  /** the temporary directory holding everything it wrote */
  dir: string
  stop(): Promise<void>
  stopSync(): void
}

export type Resolved = { url: string; line: string; service?: PrivateService }
