ALTER TABLE "eligibility_rounds" ADD COLUMN "total" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "eligibility_rounds" ADD COLUMN "requests" integer DEFAULT 0 NOT NULL;