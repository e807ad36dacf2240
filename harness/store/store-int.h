/* SPDX-License-Identifier: MIT */
/*
 * The store's internals, shared by its files and by nothing else: the
 * store is the only module with SQL (every other module goes through
 * store.h).  schema.c opens, creates and migrates a database and checks
 * the rows read against the schema; write.c stores campaigns, boots and
 * events; read.c and samples.c are the queries of compare, list and
 * upload; merge.c unites databases.
 *
 * The statement helpers are static inline: a line or two around a
 * sqlite3 call each, kept out of the library's symbol table.
 */
#ifndef VTB_STORE_INT_H
#define VTB_STORE_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store.h"

struct vtb_store {
	sqlite3 *db;
	char *path;
	bool ro;
	bool created;	  /* this open made the file (O_CREAT|O_EXCL): vtb_store_created */
	bool immutable;	  /* read without locks: a WAL database on a read-only mount */
	bool bad_content; /* the last error was the database's content */
	int error_rc;	  /* SQLite's primary code of the last error from SQLite */
};

static inline int db_error(struct vtb_store *st, const char *what)
{
	int rc = sqlite3_errcode(st->db) & 0xff;

	/* a damaged or crafted file is input, not infrastructure */
	st->bad_content = rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
	st->error_rc = rc;
	return vtb_error("cannot %s in '%s': %s", what, st->path, sqlite3_errmsg(st->db));
}

static inline int prepare(struct vtb_store *st, const char *sql, sqlite3_stmt **out)
{
	*out = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
		return db_error(st, "prepare a statement");
	return 0;
}

/* Binders return the SQLite code: callers OR them and check once. */
static inline int bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

/* For NOT NULL identity columns: an unknown value is "". */
static inline int bind_text0(sqlite3_stmt *s, int i, const char *v)
{
	return sqlite3_bind_text(s, i, v ? v : "", -1, SQLITE_STATIC);
}

static inline int bind_int(sqlite3_stmt *s, int i, int64_t v)
{
	return sqlite3_bind_int64(s, i, v);
}

/* An id of 0 (none) is NULL. */
static inline int bind_id(sqlite3_stmt *s, int i, int64_t id)
{
	return id ? sqlite3_bind_int64(s, i, id) : sqlite3_bind_null(s, i);
}

/*
 * Runs @s to completion (statements without rows) or to its first row
 * (*row true, the row is left readable); the caller resets.
 */
static inline int step(struct vtb_store *st, sqlite3_stmt *s, const char *what, bool *row)
{
	int rc = sqlite3_step(s);

	if (row)
		*row = rc == SQLITE_ROW;
	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return db_error(st, what);
}

static inline const char *column_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

/* SQL without bound values: pragmas and transaction control. */
static inline int exec_sql(struct vtb_store *st, const char *sql, const char *what)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(st, what);
	return 0;
}

static inline int begin(struct vtb_store *st)
{
	return exec_sql(st, "BEGIN IMMEDIATE", "begin a transaction");
}

static inline int commit(struct vtb_store *st)
{
	return exec_sql(st, "COMMIT", "commit");
}

/* Keeps the error message of what failed. */
static inline void rollback(struct vtb_store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Rows read checked against the schema this vtbench writes (schema.c). */
struct ref_col;

/* Per statement: each column's schema entry, and the column holding the
 * id of its row (-1: none selected). */
struct row_check {
	int n;
	const struct ref_col **col;
	int *idcol;
};

int store_row_check_init(struct vtb_store *st, sqlite3_stmt *s, struct row_check *rc);
void store_row_check_release(struct row_check *rc);
/* 0, or -1 with vtb_error() and bad_content set when the row breaks the
 * schema. */
int store_row_check(struct vtb_store *st, sqlite3_stmt *s, const struct row_check *rc);

/*
 * Is the schema of @schema ("main", or an attached database) exactly the
 * one migrations 1..@version create (schema.c explains what is compared)?
 * 0, or -1 with vtb_error() naming @path and the object, and bad_content
 * set.
 */
int store_schema_check(struct vtb_store *st, const char *schema, const char *path, int version);

/* Queries (read.c), see there. */
int store_query_each(struct vtb_store *st, const char *sql, int64_t id, const char *what,
		     int (*emit)(sqlite3_stmt *s, void *ctx), void *ctx);
int store_campaign_scan(struct vtb_store *st, int64_t campaign_id, bool *scan);

#endif
