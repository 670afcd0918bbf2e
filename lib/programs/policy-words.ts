// Who may claim a program, in words a visitor of its claim page reads ("Holders of an NFT of the
// collection 9xQe…b2Fk"). Never an allowlist's addresses, nor how many it holds: only that claims
// are by invitation. Mints and collections are shortened as everywhere on the page.
import { shortAddress } from '../address';
import type { ClaimRule } from '../eligibility/policy';

/** The sentence for the claim page; no rule: anyone. */
export function policyInWords(rule: ClaimRule | undefined): string {
  if (!rule) return 'Anyone with a Solana wallet';
  switch (rule.kind) {
    case 'allow':
      return 'Invited wallets';
    case 'token':
      return `Holders of ${tokenAmount(rule)}`;
    case 'collection':
      return `Holders of ${collectionNft(rule)}`;
    case 'group':
      return `Holders of ${groupToken(rule)}`;
    default:
      return `Wallets that ${phrase(rule)}`;
  }
}

function tokenAmount(rule: Extract<ClaimRule, { kind: 'token' }>): string {
  // Amounts are in the token's base units (the policy does not know its decimals): 1 means "any".
  return rule.minAmount <= 1n ? `the token ${shortAddress(rule.mint)}` : `at least ${rule.minAmount} base units of the token ${shortAddress(rule.mint)}`;
}

/** "an NFT of the collection 9xQe…b2Fk with Background: Blue and Eyes: Laser". */
function collectionNft(rule: Extract<ClaimRule, { kind: 'collection' }>): string {
  const nft = `an NFT of the collection ${shortAddress(rule.collection)}`;
  if (!rule.traits) return nft;
  // In trait_type order: a stored policy (jsonb) does not keep the order it was written in.
  const traits = Object.entries(rule.traits)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([type, value]) => `${type}: ${value}`);
  return `${nft} with ${traits.length === 1 ? traits[0] : `${traits.slice(0, -1).join(', ')} and ${traits.at(-1)}`}`;
}

/** "a token of the group 9xQe…b2Fk" (a Token-2022 group, such as the Seeker Genesis Token's). */
function groupToken(rule: Extract<ClaimRule, { kind: 'group' }>): string {
  return `a token of the group ${shortAddress(rule.group)}`;
}

/** What a wallet must do, as words after "Wallets that". */
function phrase(rule: ClaimRule): string {
  switch (rule.kind) {
    case 'allow':
      return 'are invited';
    case 'token':
      return `hold ${tokenAmount(rule)}`;
    case 'collection':
      return `hold ${collectionNft(rule)}`;
    case 'group':
      return `hold ${groupToken(rule)}`;
    case 'all':
      return joined(rule.rules.map(phrase), 'and', 'both');
    case 'any':
      return joined(rule.rules.map(phrase), 'or', 'either');
    default:
      // A kind of rule newer than these words: say no more than that there is one.
      return 'meet this program’s requirement';
  }
}

/** "both A and B", "A, B and C"; one part alone as it is. */
function joined(parts: string[], word: 'and' | 'or', pair: 'both' | 'either'): string {
  if (parts.length <= 1) return parts[0] ?? '';
  if (parts.length === 2) return `${pair} ${parts[0]} ${word} ${parts[1]}`;
  return `${parts.slice(0, -1).join(', ')} ${word} ${parts.at(-1)}`;
}
