ALTER TABLE "passes" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "relevant_at" timestamp with time zone;