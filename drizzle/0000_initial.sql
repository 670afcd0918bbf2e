CREATE TABLE "passes" (
	"serial_number" text PRIMARY KEY NOT NULL,
	"download_id" text NOT NULL,
	"download_id_hash" text NOT NULL,
	"public_key" text NOT NULL,
	"wallet_type" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"pkpass" "bytea",
	"pkpass_etag" text,
	CONSTRAINT "passes_download_id_hash_unique" UNIQUE("download_id_hash"),
	CONSTRAINT "passes_public_key_unique" UNIQUE("public_key")
);
--> statement-breakpoint
CREATE TABLE "sign_in_messages" (
	"nonce_hash" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"message" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "sign_in_messages_expires_at_idx" ON "sign_in_messages" USING btree ("expires_at");