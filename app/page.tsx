export default function ClaimPage() {
  return (
    <main>
      <h1>Claim your wallet pass</h1>
      <p>Sign one message to prove you own this wallet. No transaction, no fee.</p>
    </main>
  );
}
