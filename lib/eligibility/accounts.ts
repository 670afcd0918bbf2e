// The accounts the eligibility rules read, as bytes: the programs that own them, where they live
// (associated token accounts, Metaplex metadata), and their decoders, each with the program's own
// codec where it has one. Shared by the RPC reads (./chain.ts) and the subscriptions
// (./subscriptions.ts), which see the same token accounts pushed to them.
import type { getMetadataAccountDataSerializer } from '@metaplex-foundation/mpl-token-metadata';
import {
  type Address,
  address,
  getAddressDecoder,
  getAddressEncoder,
  getBase64Encoder,
  getProgramDerivedAddress,
  getStructDecoder,
  getU64Decoder,
} from '@solana/kit';
import type { getMintDecoder as getToken2022MintDecoder } from '@solana-program/token-2022';

export const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const TOKEN_METADATA_PROGRAM = address('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');
export const ASSOCIATED_TOKEN_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');

/** An account as getMultipleAccounts answers it (base64): its fields are checked where they are read. */
export type RawAccount = { owner?: unknown; data?: unknown };

/** The start of an SPL token account, the same under Token and Token-2022: mint, owner, amount (u64). */
const tokenAccountHead = getStructDecoder([
  ['mint', getAddressDecoder()],
  ['owner', getAddressDecoder()],
  ['amount', getU64Decoder()],
]);
/** A token account is 165 bytes; a Token-2022 one with extensions is longer and says "account" (2) at byte 165. */
export const TOKEN_ACCOUNT_SIZE = 165;
/** Token-2022's account-type byte (at TOKEN_ACCOUNT_SIZE when extensions follow) for an account, not a mint. */
export const ACCOUNT_TYPE_ACCOUNT = 2;

/**
 * The amount an associated token account holds of `mint` for `owner`: 0 unless it is a token
 * account of `program` naming that mint and owner (anything else at that address holds none of
 * it); undefined when its data is not base64 (a malformed answer).
 */
export function associatedAmount(account: RawAccount, owner: string, mint: string, program: Address): bigint | undefined {
  const data = Array.isArray(account.data) ? account.data[0] : undefined;
  if (typeof data !== 'string') return undefined;
  if (account.owner !== program) return 0n;
  const bytes = getBase64Encoder().encode(data) as Uint8Array;
  if (bytes.length < TOKEN_ACCOUNT_SIZE || (bytes.length > TOKEN_ACCOUNT_SIZE && bytes[TOKEN_ACCOUNT_SIZE] !== ACCOUNT_TYPE_ACCOUNT)) return 0n;
  const head = tokenAccountHead.decode(bytes);
  return head.mint === mint && head.owner === owner ? head.amount : 0n;
}

/** The associated token account of `owner` for `mint` under `program`: the PDA of [owner, program, mint] of the ATA program. */
export async function associatedTokenAddress(owner: Address, mint: Address, program: Address): Promise<Address> {
  const encoder = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM,
    seeds: [encoder.encode(owner), encoder.encode(program), encoder.encode(mint)],
  });
  return pda;
}

/**
 * The verified collection named by a Metaplex Metadata account, decoded with Metaplex's own codec
 * (mpl-token-metadata's generated serializer, so every layout version it knows is read as Metaplex
 * reads it). An account that does not decode, or that belongs to another mint, names none.
 */
export function decodeVerifiedCollection(serializer: ReturnType<typeof getMetadataAccountDataSerializer>, bytes: Uint8Array, mint: string): string | undefined {
  try {
    const [metadata] = serializer.deserialize(bytes);
    if (metadata.mint !== mint || metadata.collection.__option !== 'Some') return undefined;
    const { verified, key } = metadata.collection.value;
    return verified ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The group a Token-2022 mint's group member extension names, decoded with the Token-2022
 * program's own codec (@solana-program/token-2022). Only the extension in the mint itself counts,
 * and only when it names this mint as the member: the Token-2022 program writes it there only with
 * the group's update authority's signature. A mint that does not decode (not a mint, an extension
 * newer than the codec) names none.
 */
export function decodeGroupMembership(decoder: ReturnType<typeof getToken2022MintDecoder>, bytes: Uint8Array, mint: string): string | undefined {
  try {
    const decoded = decoder.decode(bytes);
    if (decoded.extensions.__option !== 'Some') return undefined;
    for (const extension of decoded.extensions.value) {
      if (extension.__kind === 'TokenGroupMember' && extension.mint === mint) return extension.group;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** The Metaplex Metadata account of a mint: the PDA of ["metadata", program id, mint]. */
export async function metadataAddress(mint: Address): Promise<Address> {
  const encoder = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM,
    seeds: ['metadata', encoder.encode(TOKEN_METADATA_PROGRAM), encoder.encode(mint)],
  });
  return pda;
}
