ALTER TABLE "passes" DROP COLUMN "pkpass";--> statement-breakpoint
-- Dropping a column leaves its values in the table's files; rewriting the table (VACUUM FULL cannot run in a migration's transaction) removes them.
CLUSTER "passes" USING "passes_pkey";
