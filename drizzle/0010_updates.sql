CREATE TABLE "update_batches" (
	"update_id" text NOT NULL,
	"key" text NOT NULL,
	"after_serial" text,
	"after_device" text,
	"last_serial" text,
	"last_device" text,
	"devices" integer NOT NULL,
	"retry" jsonb,
	"attempt" integer DEFAULT 1 NOT NULL,
	"done_at" timestamp with time zone,
	CONSTRAINT "update_batches_update_id_key_pk" PRIMARY KEY("update_id","key")
);
--> statement-breakpoint
CREATE TABLE "updates" (
	"id" text PRIMARY KEY NOT NULL,
	"program" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"active_only" boolean NOT NULL,
	"passes" integer NOT NULL,
	"devices_estimate" integer NOT NULL,
	"devices_planned" integer DEFAULT 0 NOT NULL,
	"devices_delta" integer DEFAULT 0 NOT NULL,
	"devices_pushed" integer DEFAULT 0 NOT NULL,
	"devices_failed" integer DEFAULT 0 NOT NULL,
	"batches" integer DEFAULT 0 NOT NULL,
	"batches_done" integer DEFAULT 0 NOT NULL,
	"planned" boolean DEFAULT false NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "device_registrations_serial_number_idx";--> statement-breakpoint
ALTER TABLE "programs" ADD COLUMN "message" text;--> statement-breakpoint
ALTER TABLE "programs" ADD COLUMN "message_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "update_batches" ADD CONSTRAINT "update_batches_update_id_updates_id_fk" FOREIGN KEY ("update_id") REFERENCES "public"."updates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "updates" ADD CONSTRAINT "updates_program_programs_slug_fk" FOREIGN KEY ("program") REFERENCES "public"."programs"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "updates_started_at_idx" ON "updates" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "device_registrations_serial_device_idx" ON "device_registrations" USING btree ("serial_number","device_library_identifier");--> statement-breakpoint
CREATE INDEX "passes_program_serial_number_idx" ON "passes" USING btree ("program","serial_number");