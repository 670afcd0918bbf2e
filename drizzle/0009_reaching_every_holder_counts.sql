CREATE TABLE "device_registration_days" (
	"day" date NOT NULL,
	"program" text NOT NULL,
	"installs" integer DEFAULT 0 NOT NULL,
	"uninstalls" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "device_registration_days_day_program_pk" PRIMARY KEY("day","program")
);
--> statement-breakpoint
CREATE TABLE "google_notifications" (
	"serial_number" text PRIMARY KEY NOT NULL,
	"notified" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "google_notifications" ADD CONSTRAINT "google_notifications_serial_number_passes_serial_number_fk" FOREIGN KEY ("serial_number") REFERENCES "public"."passes"("serial_number") ON DELETE no action ON UPDATE no action;