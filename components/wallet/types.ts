// What the wallet pieces shared by the claim page and the operator console report about wallets.

/** A wallet the person can pick: its name (as adapters report it) and its data: URI icon. */
export type WalletOption = { name: string; icon: string };

/** Why the wallet did not do what was asked. */
export type WalletFailure =
  | 'declined' // the person said no in the wallet
  | 'failed' // the wallet answered with an error of its own
  | 'disconnected' // the wallet disconnected on the way
  | 'cannot-sign' // the wallet offers neither signIn nor signMessage
  | 'account-changed'; // the wallet signed with another account than the connected one
