ALTER TABLE "passes" ADD COLUMN "auth_token_hash" text;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "pkpass_built_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "pkpass_modified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "google_object_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "google_linked_at" timestamp with time zone;