// The signed .pkpass of recently served passes, in this process's memory only: the file holds the
// pass's authentication token, so it is never stored (docs/decisions.md, "The pass file is not
// stored"). Each entry is one pass's file for one version and Last-Modified; a change of the pass
// makes it stale, and a rebuild of the same version gives the same bytes (lib/passes/pkpass.ts).
// Least recently used first out, bounded in bytes.

/** The bytes of files kept at most: about 5,000 passes of the bundled designs (~12 KB each). */
export const PASS_FILE_CACHE_BYTES = 64 * 1024 * 1024;

export type CachedPassFile = { version: string; lastModified: Date; pkpass: Buffer; etag: string };

export class PassFileCache {
  /** By serial number; a Map iterates in insertion order, so the first entry is the least recently used. */
  private readonly entries = new Map<string, CachedPassFile>();
  /** Builds under way, by serial, version and Last-Modified: the devices a push wakes ask at once. */
  private readonly building = new Map<string, Promise<CachedPassFile>>();
  private bytes = 0;

  constructor(private readonly maxBytes = PASS_FILE_CACHE_BYTES) {}

  /** The file kept for the serial if it was built for this version and Last-Modified. */
  get(serialNumber: string, version: string, lastModified: Date): CachedPassFile | undefined {
    const file = this.entries.get(serialNumber);
    if (!file || file.version !== version || file.lastModified.getTime() !== lastModified.getTime()) return undefined;
    this.entries.delete(serialNumber);
    this.entries.set(serialNumber, file);
    return file;
  }

  /**
   * The file kept for this version and Last-Modified, else `build`'s, kept: requests that miss at
   * the same time share one build (one RSA signature) rather than each signing the same bytes.
   */
  async getOrBuild(serialNumber: string, version: string, lastModified: Date, build: () => Promise<{ pkpass: Buffer; etag: string }>): Promise<CachedPassFile> {
    const kept = this.get(serialNumber, version, lastModified);
    if (kept) return kept;
    const key = `${serialNumber} ${version} ${lastModified.getTime()}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = build()
        .then(({ pkpass, etag }) => {
          const file = { version, lastModified, pkpass, etag };
          this.set(serialNumber, file);
          return file;
        })
        .finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  set(serialNumber: string, file: CachedPassFile): void {
    this.delete(serialNumber);
    if (file.pkpass.length > this.maxBytes) return;
    this.entries.set(serialNumber, file);
    this.bytes += file.pkpass.length;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  /** How many files and bytes are kept. */
  size(): { files: number; bytes: number } {
    return { files: this.entries.size, bytes: this.bytes };
  }

  private delete(serialNumber: string): void {
    const file = this.entries.get(serialNumber);
    if (!file) return;
    this.entries.delete(serialNumber);
    this.bytes -= file.pkpass.length;
  }
}
