CREATE TABLE "program_images" (
	"program" text NOT NULL,
	"kind" text NOT NULL,
	"file" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"sha1" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	CONSTRAINT "program_images_program_file_pk" PRIMARY KEY("program","file")
);
--> statement-breakpoint
CREATE TABLE "programs" (
	"slug" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"opens_at" timestamp with time zone,
	"closes_at" timestamp with time zone,
	"supply" integer,
	"issued" integer DEFAULT 0 NOT NULL,
	"policy" jsonb,
	"check_in" text DEFAULT 'once' NOT NULL,
	"design" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The default program: the service as it was, live, its supply count starting from the passes already issued.
INSERT INTO "programs" ("slug", "name", "status", "issued") SELECT 'default', 'Wallet pass', 'live', count(*)::int FROM "passes";--> statement-breakpoint
ALTER TABLE "passes" DROP CONSTRAINT "passes_public_key_unique";--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "program" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "program_images" ADD CONSTRAINT "program_images_program_programs_slug_fk" FOREIGN KEY ("program") REFERENCES "public"."programs"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passes" ADD CONSTRAINT "passes_program_programs_slug_fk" FOREIGN KEY ("program") REFERENCES "public"."programs"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "passes_program_public_key_idx" ON "passes" USING btree ("program","public_key");--> statement-breakpoint
CREATE INDEX "passes_public_key_idx" ON "passes" USING btree ("public_key");