CREATE TABLE "wallet_pending" (
	"public_key" text PRIMARY KEY NOT NULL,
	"pending" jsonb NOT NULL,
	"last_expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "wallet_pending_last_expires_at_idx" ON "wallet_pending" USING btree ("last_expires_at");--> statement-breakpoint
ALTER TABLE "passes" DROP COLUMN "download_id";