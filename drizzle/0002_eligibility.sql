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
CREATE INDEX "eligibility_rounds_started_at_idx" ON "eligibility_rounds" USING btree ("started_at");