// The DAS API's answers (Metaplex's Digital Asset Standard, served by Helius, Triton, QuickNode's
// add-on and others on the same JSON-RPC endpoint): what `getAssetsByOwner` says of each asset a
// wallet owns, reduced to what a collection rule reads. Compressed NFTs and Metaplex Core assets
// have no token account, so DAS is the only standard way to see them; token-metadata NFTs are
// listed too, so with DAS one paged call answers a collection rule for every kind.
//
// Shapes (Metaplex's DAS specification and its reference implementation, digital-asset-rpc-infrastructure):
//   request params {ownerAddress, limit ≤ 1000, page (1-based) | cursor, options: {showUnverifiedCollections}}
//   result {total, limit, page?, cursor?, items: [asset]}
//   asset {interface: "V1_NFT" | "ProgrammableNFT" | "MplCoreAsset" | …, id, burnt,
//          content: {metadata: {attributes: [{trait_type, value}]}},
//          compression: {compressed}, grouping: [{group_key: "collection", group_value, verified?}],
//          ownership: {owner}}
// With `showUnverifiedCollections` every grouping says `verified`; only `verified: true` counts (a
// provider that leaves the flag out is read as unverified: it is never assumed).

/** The DAS API answers at most this many items a page. */
export const DAS_PAGE_LIMIT = 1000;
/** A page too large for SOLANA_RPC_MAX_BYTES is asked again at half the size, down to this (1000, 500, 250, 125). */
export const DAS_MIN_PAGE_LIMIT = 125;
/** Assets read for one wallet at most: past it the read fails rather than decide on part of the list. */
export const DAS_MAX_ASSETS = 100_000;

/** An asset as a collection rule reads it. */
export type DasAsset = {
  id: string;
  /** `interface`: V1_NFT, ProgrammableNFT, MplCoreAsset, … */
  kind: string;
  compressed: boolean;
  /** The collections its grouping names with `verified: true`. */
  collections: string[];
  /** content.metadata.attributes, as trait_type → values (a number or true/false written as text). */
  attributes: ReadonlyMap<string, readonly string[]>;
};

export type DasPage = {
  assets: DasAsset[];
  /** Items in the page as answered (burnt and others' included): fewer than the limit ends the list. */
  count: number;
  /** Where the next page starts, when the provider pages by keyset (`cursor`). */
  cursor: string | null;
  /** The page number answered, when the provider pages by number. */
  page: number | null;
};

/** The provider answered `method not found` (-32601): it does not serve DAS. */
export class DasNotServed extends Error {
  constructor() {
    super('the RPC does not serve the DAS API (getAssetsByOwner: method not found)');
    this.name = 'DasNotServed';
  }
}

/** A JSON-RPC error other than "method not found": the provider failed (tried again like any outage). */
export class DasServerError extends Error {
  constructor(readonly code: unknown) {
    super(`getAssetsByOwner answered JSON-RPC error ${typeof code === 'number' ? code : '?'}`);
    this.name = 'DasServerError';
  }
}

/** The params of one page: the first page names no position (a provider that pages by keyset then answers a cursor). */
export function assetsByOwnerParams(owner: string, position: { cursor?: string; page?: number }, limit = DAS_PAGE_LIMIT): Record<string, unknown> {
  return { ownerAddress: owner, limit, ...position, options: { showUnverifiedCollections: true } };
}

/**
 * The `result` of a JSON-RPC answer to getAssetsByOwner; throws DasNotServed on -32601 and
 * DasServerError on another error.
 */
export function dasResult(answer: unknown): unknown {
  const { result, error } = (answer ?? {}) as { result?: unknown; error?: { code?: unknown } };
  if (error) throw error.code === -32601 ? new DasNotServed() : new DasServerError(error.code);
  return result;
}

/**
 * One page of getAssetsByOwner, reduced: burnt assets and assets another wallet owns are left
 * out. Returns a problem (text) instead when the answer is not the documented shape.
 */
export function readAssetPage(result: unknown, owner: string): DasPage | string {
  const list = result as { items?: unknown; cursor?: unknown; page?: unknown } | null;
  if (!list || !Array.isArray(list.items)) return 'no list of items';
  const assets: DasAsset[] = [];
  for (const item of list.items as unknown[]) {
    const asset = item as {
      id?: unknown;
      interface?: unknown;
      burnt?: unknown;
      compression?: { compressed?: unknown } | null;
      grouping?: unknown;
      ownership?: { owner?: unknown } | null;
      content?: { metadata?: { attributes?: unknown } | null } | null;
    } | null;
    if (!asset || typeof asset.id !== 'string') return 'an item without an id';
    if (asset.burnt === true) continue;
    if (asset.ownership?.owner !== owner) continue;
    const collections: string[] = [];
    if (asset.grouping !== undefined && asset.grouping !== null) {
      if (!Array.isArray(asset.grouping)) return 'a grouping that is not a list';
      for (const group of asset.grouping as { group_key?: unknown; group_value?: unknown; verified?: unknown }[]) {
        if (group?.group_key === 'collection' && typeof group.group_value === 'string' && group.verified === true) collections.push(group.group_value);
      }
    }
    assets.push({
      id: asset.id,
      kind: typeof asset.interface === 'string' ? asset.interface : 'unknown',
      compressed: asset.compression?.compressed === true,
      collections,
      attributes: readAttributes(asset.content?.metadata?.attributes),
    });
  }
  const cursor = typeof list.cursor === 'string' && list.cursor !== '' ? list.cursor : null;
  const page = typeof list.page === 'number' && Number.isInteger(list.page) ? list.page : null;
  return { assets, count: list.items.length, cursor, page };
}

/** Attributes as the off-chain JSON has them (indexed by DAS): entries that are not {trait_type, value} are skipped. */
function readAttributes(attributes: unknown): ReadonlyMap<string, readonly string[]> {
  const found = new Map<string, string[]>();
  if (!Array.isArray(attributes)) return found;
  for (const entry of attributes as { trait_type?: unknown; value?: unknown }[]) {
    const type = entry?.trait_type;
    const value = entry?.value;
    if (typeof type !== 'string') continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    const values = found.get(type) ?? [];
    values.push(String(value));
    found.set(type, values);
  }
  return found;
}

/** True when the asset is of `collection` (verified) and has every one of `traits` (trait_type and value compared exactly). */
export function assetMatches(asset: DasAsset, collection: string, traits: Readonly<Record<string, string>> | undefined): boolean {
  if (!asset.collections.includes(collection)) return false;
  if (!traits) return true;
  return Object.entries(traits).every(([type, value]) => asset.attributes.get(type)?.includes(value) === true);
}
