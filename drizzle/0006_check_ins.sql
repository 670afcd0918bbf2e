CREATE TABLE "check_ins" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"serial_number" text NOT NULL,
	"program" text NOT NULL,
	"admission_key" text NOT NULL,
	"checked_in_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "operator_api_keys" ADD COLUMN "scope" text DEFAULT 'operator' NOT NULL;--> statement-breakpoint
ALTER TABLE "passes" ADD COLUMN "pkpass_format" integer;--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_serial_number_passes_serial_number_fk" FOREIGN KEY ("serial_number") REFERENCES "public"."passes"("serial_number") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "check_ins_serial_number_admission_key_idx" ON "check_ins" USING btree ("serial_number","admission_key");--> statement-breakpoint
CREATE INDEX "check_ins_checked_in_at_idx" ON "check_ins" USING btree ("checked_in_at","program");