CREATE TABLE "device_registrations" (
	"device_library_identifier" text,
	"serial_number" text,
	"push_token" text,
	"created_at" timestamp with time zone,
	CONSTRAINT "device_registrations_device_library_identifier_serial_number_pk" PRIMARY KEY("device_library_identifier","serial_number")
);
--> statement-breakpoint
CREATE TABLE "eligibility_lease" (
	"id" integer PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" timestamp with time zone NOT NULL,
	"last_started_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "eligibility_rounds" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"checked" integer DEFAULT 0 NOT NULL,
	"voided" integer DEFAULT 0 NOT NULL,
	"restored" integer DEFAULT 0 NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"locked_by" text,
	"last_error" text,
	"done_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operator_api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"name" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "operator_api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "operator_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "wallet_pending" (
	"public_key" text PRIMARY KEY NOT NULL,
	"pending" jsonb NOT NULL,
	"last_expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "void_reason" text;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "auth_token_hash" text;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "pkpass_built_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "pkpass_modified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "google_object_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "google_linked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sign_in_messages" ADD COLUMN "purpose" text DEFAULT 'claim' NOT NULL;--> statement-breakpoint
ALTER TABLE "device_registrations" ADD CONSTRAINT "device_registrations_serial_number_passes_serial_number_fk" FOREIGN KEY ("serial_number") REFERENCES "public"."passes"("serial_number") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_registrations_serial_number_idx" ON "device_registrations" USING btree ("serial_number");--> statement-breakpoint
CREATE INDEX "eligibility_rounds_started_at_idx" ON "eligibility_rounds" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("run_at") WHERE done_at is null and failed_at is null;--> statement-breakpoint
CREATE INDEX "jobs_kind_idx" ON "jobs" USING btree ("kind","id");--> statement-breakpoint
CREATE INDEX "operator_sessions_expires_at_idx" ON "operator_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "wallet_pending_last_expires_at_idx" ON "wallet_pending" USING btree ("last_expires_at");--> statement-breakpoint
CREATE INDEX "passes_claimed_at_idx" ON "passes" USING btree ("claimed_at","serial_number");--> statement-breakpoint
ALTER TABLE "passes" DROP COLUMN "download_id";