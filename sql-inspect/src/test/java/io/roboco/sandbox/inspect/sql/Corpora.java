package io.roboco.sandbox.inspect.sql;

import java.util.List;

/**
 * The two corpora of the inspection guard, shared by {@code QueryGuardCorpusTest} (the guard alone) and
 * {@code InspectionIT} (a real sandbox, with a checksum of the database before and after).
 *
 * <p>The schema they are written against: {@code customers(id, name, email, password_hash, api_token, created_at)},
 * {@code orders(id, customer_id, status, total, placed_at)}, {@code notes(id, body)}, the view {@code order_totals}
 * and the materialized view {@code status_counts}; sequences {@code customers_id_seq}, {@code orders_id_seq}.
 */
public final class Corpora {
    /** An attempt to get past the guard; {@code rule} is one violation it must be refused for. */
    public record Attempt(String category, String rule, String sql) {
        @Override
        public String toString() {
            return category + ": " + sql.replace("\n", "\\n").replace("\r", "\\r");
        }
    }

    private static Attempt a(String category, String rule, String sql) {
        return new Attempt(category, rule, sql);
    }

    private static final String MULTI = Violation.MULTIPLE_STATEMENTS;
    private static final String KIND = Violation.STATEMENT_KIND;
    private static final String WRITE = Violation.WRITE_KEYWORD;
    private static final String FUNCTION = Violation.DENIED_FUNCTION;
    private static final String COLUMN = Violation.DENIED_COLUMN;
    private static final String ROW = Violation.WHOLE_ROW;
    private static final String STAR = Violation.STAR_PLACEMENT;
    private static final String LOCK = Violation.ROW_LOCK;
    private static final String INTO = Violation.SELECT_INTO;
    private static final String ANALYZE = Violation.EXPLAIN_ANALYZE;
    private static final String SYNTAX = Violation.SYNTAX;

    public static final List<Attempt> BYPASS = List.of(
            // multi-statement and COMMIT chaining
            a("multi-statement", MULTI, "SELECT 1; DELETE FROM orders"),
            a("commit chaining", MULTI, "SELECT 1; COMMIT; DELETE FROM orders"),
            a("commit chaining", MULTI, "SELECT 1;COMMIT;DROP TABLE orders"),
            a("commit chaining", MULTI, "SELECT 1; ROLLBACK; BEGIN READ WRITE; DELETE FROM orders; COMMIT"),
            a("commit chaining", MULTI, "SELECT 1; END; UPDATE customers SET name = 'x'"),
            a("multi-statement", MULTI, "SELECT 1;\n;DELETE FROM orders"),
            a("multi-statement", MULTI, "SELECT 1; -- a comment the driver sends as a second statement"),
            a("multi-statement", MULTI, "SELECT current_setting('x') ; ; "),
            a("multi-statement", MULTI, "(SELECT 1); DELETE FROM orders"),
            // comments
            a("comments", MULTI, "SELECT 1 /* ; */ ; DELETE FROM orders"),
            a("comments", MULTI, "SELECT 1 /* -- */ ; DELETE FROM orders"),
            a("comments", MULTI, "SELECT 1 -- /*\n; DELETE FROM orders -- */"),
            a("comments", FUNCTION, "SELECT 1 /* ' */ , pg_sleep(5) /* ' */"),
            a("comments", FUNCTION, "SELECT 1 --\r, pg_sleep(3)"),
            a("comments", FUNCTION, "SELECT pg_sleep/**/(2)"),
            a("comments", KIND, "/* SELECT */ DELETE FROM orders"),
            a("comments", SYNTAX, "SELECT 1 /* unterminated"),
            a("comments", SYNTAX, "SELECT 1 /* /* nested, closed once */ ; DELETE FROM orders"),
            a("comments", LOCK, "SELECT id FROM orders FOR/**/UPDATE"),
            // quotes and quoted identifiers
            a("quotes", MULTI, "SELECT 'x\\'; DELETE FROM orders; --'"),
            a("quotes", FUNCTION, "SELECT 'a\\' , pg_sleep(5) , '\\'"),
            a("quotes", MULTI, "SELECT \"a\\\"; DELETE FROM orders; --\""),
            a("quotes", MULTI, "SELECT 1 AS \"x\"\"\"; DELETE FROM orders"),
            a("quotes", SYNTAX, "SELECT 'unterminated; DELETE FROM orders"),
            a("quotes", SYNTAX, "SELECT U&\"p\\0061ssword_hash\" FROM customers"),
            a("quotes", MULTI, "SELECT U&'\\0027'; DELETE FROM orders"),
            // E'' escapes
            a("E'' escapes", MULTI, "SELECT E'\\''; DELETE FROM orders; --'"),
            a("E'' escapes", MULTI, "SELECT E'\\\\'; DELETE FROM orders"),
            a("E'' escapes", FUNCTION, "SELECT e'x\\'', pg_sleep(3) --'"),
            a("E'' escapes", FUNCTION, "SELECT E'\\'' || pg_sleep(2)::text"),
            a("E'' escapes", SYNTAX, "SELECT E'\\'; DELETE FROM orders"),
            // dollar bodies
            a("dollar bodies", MULTI, "SELECT $a$ $b$; $a$; DELETE FROM orders; SELECT $b$ $b$"),
            a("dollar bodies", MULTI, "SELECT $q$;$q$||$$;$$; DELETE FROM orders"),
            a("dollar bodies", FUNCTION, "SELECT 1 AS x$a$, pg_sleep(2), 'x$a$'"),
            a("dollar bodies", FUNCTION, "SELECT $_$x$_$, pg_sleep(2)"),
            a("dollar bodies", SYNTAX, "SELECT $$ unterminated; DELETE FROM orders"),
            a("dollar bodies", KIND, "DO $$BEGIN DELETE FROM orders; END$$"),
            // data-modifying CTEs
            a("data-modifying CTE", WRITE, "WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d"),
            a("data-modifying CTE", WRITE, "WITH u AS (UPDATE customers SET name = 'x' RETURNING id) SELECT id FROM u"),
            a(
                    "data-modifying CTE",
                    WRITE,
                    "WITH i AS (INSERT INTO notes(body) VALUES ('x') RETURNING id) SELECT id FROM i"),
            a("data-modifying CTE", WRITE, "WITH x AS (SELECT 1) DELETE FROM orders"),
            a("data-modifying CTE", WRITE, "WITH RECURSIVE r AS (SELECT 1) INSERT INTO notes(body) SELECT 'x' FROM r"),
            a("data-modifying CTE", WRITE, "WITH d AS MATERIALIZED (DELETE FROM notes RETURNING id) SELECT 1"),
            // SELECT INTO
            a("SELECT INTO", INTO, "SELECT id, name INTO stolen FROM customers"),
            a("SELECT INTO", INTO, "SELECT id INTO TEMP t FROM orders"),
            a("SELECT INTO", INTO, "SELECT id INTO UNLOGGED t2 FROM orders"),
            // row locks
            a("row locks", LOCK, "SELECT id FROM orders FOR UPDATE"),
            a("row locks", LOCK, "SELECT id FROM orders FOR SHARE"),
            a("row locks", LOCK, "SELECT id FROM orders FOR NO KEY UPDATE"),
            a("row locks", LOCK, "SELECT id FROM orders FOR KEY SHARE SKIP LOCKED"),
            a("row locks", LOCK, "SELECT id FROM orders WHERE id IN (SELECT id FROM orders FOR UPDATE)"),
            // set_config and SET
            a("set_config", FUNCTION, "SELECT set_config('statement_timeout', '0', false)"),
            a("set_config", FUNCTION, "SELECT pg_catalog.set_config('default_transaction_read_only', 'off', false)"),
            a("set_config", FUNCTION, "SELECT \"set_config\"('search_path', 'evil', false)"),
            a("set_config", FUNCTION, "SELECT 1 FROM (SELECT set_config('work_mem', '1GB', true)) s"),
            a("set_config", KIND, "SET statement_timeout = 0"),
            // pg_sleep
            a("pg_sleep", FUNCTION, "SELECT pg_sleep(60)"),
            a("pg_sleep", FUNCTION, "SELECT PG_SLEEP(60)"),
            a("pg_sleep", FUNCTION, "SELECT pg_sleep_for('1 minute')"),
            a("pg_sleep", FUNCTION, "SELECT pg_catalog.\"pg_sleep\"(60)"),
            a("pg_sleep", FUNCTION, "SELECT pg_sleep_until(now() + interval '1 minute')"),
            a("pg_sleep", FUNCTION, "SELECT id FROM orders WHERE status = 'open' AND pg_sleep(5) IS NOT NULL"),
            // files, backends, advisory locks, sequences, notifications, large objects
            a("files", FUNCTION, "SELECT pg_read_file('/etc/passwd')"),
            a("files", FUNCTION, "SELECT pg_ls_dir('.')"),
            a("files", FUNCTION, "SELECT lo_import('/etc/passwd')"),
            a("files", FUNCTION, "SELECT pg_read_binary_file('postgresql.conf')"),
            a("backends", FUNCTION, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"),
            a("backends", FUNCTION, "SELECT pg_cancel_backend(pg_backend_pid())"),
            a("backends", FUNCTION, "SELECT pg_reload_conf()"),
            a("advisory locks", FUNCTION, "SELECT pg_advisory_lock(1)"),
            a("advisory locks", FUNCTION, "SELECT pg_try_advisory_xact_lock(1)"),
            a("sequences", FUNCTION, "SELECT nextval('customers_id_seq')"),
            a("sequences", FUNCTION, "SELECT setval('orders_id_seq', 1)"),
            a("notifications", FUNCTION, "SELECT pg_notify('ch', 'x')"),
            a("large objects", FUNCTION, "SELECT lo_unlink(1)"),
            // SQL run from text, statistics, credentials
            a("dynamic SQL", FUNCTION, "SELECT query_to_xml('select password_hash from customers', true, false, '')"),
            a("dynamic SQL", FUNCTION, "SELECT table_to_xml('customers', true, false, '')"),
            a("dynamic SQL", FUNCTION, "SELECT ts_stat('select to_tsvector(api_token) from customers')"),
            a("dynamic SQL", FUNCTION, "SELECT dblink_exec('dbname=x', 'DELETE FROM orders')"),
            a(
                    "statistics",
                    Violation.DENIED_RELATION,
                    "SELECT most_common_vals FROM pg_stats WHERE attname = 'password_hash'"),
            a("credentials", Violation.DENIED_RELATION, "SELECT rolpassword FROM pg_authid"),
            // EXPLAIN ANALYZE and what EXPLAIN may wrap
            a("EXPLAIN ANALYZE", ANALYZE, "EXPLAIN ANALYZE SELECT count(*) FROM orders"),
            a("EXPLAIN ANALYZE", ANALYZE, "EXPLAIN (ANALYZE) SELECT 1"),
            a("EXPLAIN ANALYZE", ANALYZE, "EXPLAIN (ANALYZE true, FORMAT JSON) SELECT 1"),
            a("EXPLAIN ANALYZE", ANALYZE, "EXPLAIN (FORMAT JSON, ANALYSE on) SELECT 1"),
            a("EXPLAIN ANALYZE", ANALYZE, "EXPLAIN ANALYZE DELETE FROM orders"),
            a("EXPLAIN", WRITE, "EXPLAIN DELETE FROM orders"),
            a("EXPLAIN", WRITE, "EXPLAIN WITH d AS (DELETE FROM orders RETURNING 1) SELECT 1"),
            // other statements
            a("statements", KIND, "DELETE FROM orders"),
            a("statements", KIND, "DROP TABLE orders"),
            a("statements", KIND, "TRUNCATE orders"),
            a("statements", KIND, "COPY orders TO STDOUT"),
            a("statements", KIND, "CALL some_procedure()"),
            a("statements", KIND, "COMMIT"),
            a("statements", KIND, "CREATE TABLE x AS SELECT 1"),
            a("statements", KIND, "LOCK TABLE orders"),
            a("statements", KIND, "TABLE customers"),
            // denied columns named in SQL
            a("denied column", COLUMN, "SELECT password_hash FROM customers"),
            a("denied column", COLUMN, "SELECT PASSWORD_HASH FROM customers"),
            a("denied column", COLUMN, "SELECT \"password_hash\" FROM customers"),
            a("denied column", COLUMN, "SELECT c.api_token FROM customers c"),
            a("denied column", COLUMN, "SELECT id FROM customers WHERE password_hash LIKE 'a%'"),
            a("denied column", COLUMN, "SELECT md5(password_hash) AS h FROM customers"),
            a("denied column", COLUMN, "SELECT (SELECT api_token FROM customers LIMIT 1)"),
            a("denied column", COLUMN, "EXPLAIN SELECT id FROM customers WHERE api_token = 'x'"),
            // whole-row references and '*' where redaction cannot follow
            a("whole row", ROW, "SELECT c FROM customers c"),
            a("whole row", ROW, "SELECT row_to_json(c) FROM customers c"),
            a("whole row", ROW, "SELECT to_jsonb(customers) FROM customers"),
            a("whole row", ROW, "SELECT c::text FROM customers c"),
            a("whole row", ROW, "SELECT hstore(c) FROM customers c"),
            a("whole row", ROW, "SELECT array_agg(c) FROM customers AS c"),
            a("whole row", ROW, "SELECT format('%s', c) FROM customers c"),
            a("whole row", ROW, "SELECT (c).* FROM customers c"),
            a("whole row", ROW, "SELECT id FROM customers c WHERE c::text LIKE '%hash%'"),
            a("whole row", STAR, "SELECT json_agg(c.*) FROM customers c"),
            a("whole row", STAR, "SELECT x FROM (SELECT * FROM customers) x"),
            a("whole row", STAR, "SELECT lower(z) FROM (SELECT * FROM customers) s(a, b, c, z)"),
            a("whole row", STAR, "WITH x AS (SELECT * FROM customers) SELECT x FROM x"),
            a(
                    "whole row",
                    STAR,
                    "SELECT id, name, email, 'x', 'y', now() FROM customers UNION ALL SELECT * FROM customers"),
            a("whole row", Violation.COLUMN_ALIAS_LIST, "SELECT lower(d) FROM customers u(a, b, c, d)"),
            a("whole row", Violation.TABLE_COMMAND, "SELECT * FROM (TABLE customers) t"),
            // whole rows in attribute notation: u.f is f(u)
            a("attribute notation", ROW, "SELECT c.to_jsonb FROM customers c"),
            a("attribute notation", ROW, "SELECT c.row_to_json FROM customers c"),
            a("attribute notation", ROW, "SELECT customers.to_json FROM customers"),
            a("attribute notation", ROW, "SELECT \"c\".\"to_jsonb\" FROM customers c"),
            a("attribute notation", ROW, "SELECT c.hstore FROM customers c"),
            a("attribute notation", ROW, "SELECT c.quote_literal FROM customers AS c"),
            a("attribute notation", ROW, "SELECT c.concat FROM customers c"),
            a("attribute notation", ROW, "SELECT id FROM customers c WHERE c.format LIKE '%x%'"),
            a("attribute notation", ROW, "SELECT public.customers.to_jsonb FROM public.customers"),
            a("attribute notation", ROW, "SELECT c.TO_JSONB ->> 'api_token' FROM customers c"),
            // '*' as one operand: a cast or an operator makes u.* one whole-row value
            a("star cast", ROW, "SELECT c.*::text FROM customers c"),
            a("star cast", ROW, "SELECT c.* :: text FROM customers c"),
            a("star cast", ROW, "SELECT 'x' || c.* FROM customers c"),
            a("star cast", ROW, "SELECT c.* IS NOT NULL FROM customers c"),
            a("star cast", ROW, "SELECT id, c.*::text AS t FROM customers c"),
            a("star cast", ROW, "SELECT DISTINCT c.*::text FROM customers c"),
            a("star cast", STAR, "SELECT CAST(c.* AS text) FROM customers c"),
            a("star cast", STAR, "SELECT ROW(c.*) FROM customers c"),
            a("star cast", ROW, "SELECT (c).*::text FROM customers c"),
            // parameters, JDBC escapes, characters Postgres rejects
            a("driver syntax", SYNTAX, "SELECT {fn user()}"),
            a("driver syntax", Violation.PARAMETER, "SELECT $1"),
            a("driver syntax", SYNTAX, "SELECT 1 \\g"));

    /**
     * Statements that pass the token guard but that Postgres resolves to a whole row or a computation on a denied
     * column (attribute notation of a function of the agent's own taking the row; a view computes on one); the plan check
     * under the guard refuses each with {@code rule}. {@code InspectionIT} creates the views they name.
     */
    public static final List<Attempt> RESOLVED = List.of(
            a("function of the agent's own", ROW, "SELECT c.row_text FROM customers c"),
            a("function of the agent's own", ROW, "SELECT id FROM customers c WHERE c.row_text LIKE '%pw%'"),
            a("view", ROW, "SELECT x.r FROM customer_rows x"),
            a("view", COLUMN, "SELECT h FROM customer_hashes"),
            a("view", COLUMN, "SELECT * FROM customer_hashes"),
            a("view", ROW, "SELECT * FROM customer_rows"),
            a("sort by position", COLUMN, "SELECT * FROM customers ORDER BY 4"));

    /** Statements an agent legitimately sends; all pass the guard and run against the corpus schema. */
    public static final List<String> LEGITIMATE = List.of(
            "SELECT 1",
            "select count(*) from orders",
            "SELECT id, name, email FROM customers ORDER BY id LIMIT 5",
            "SELECT * FROM orders WHERE status = 'open' LIMIT 10",
            "SELECT * FROM customers ORDER BY id LIMIT 3",
            "SELECT c.*, o.total FROM customers c JOIN orders o ON o.customer_id = c.id ORDER BY o.id LIMIT 5",
            "WITH t AS (SELECT customer_id, sum(total) AS s FROM orders GROUP BY customer_id) SELECT * FROM t ORDER BY s DESC LIMIT 3",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n",
            "EXPLAIN SELECT * FROM orders WHERE customer_id = 3",
            "EXPLAIN (FORMAT JSON, COSTS true) SELECT id FROM orders",
            "EXPLAIN (ANALYZE false) SELECT 1",
            "EXPLAIN VERBOSE SELECT id FROM orders",
            "SELECT 'a'';DELETE FROM orders;--' AS s",
            "SELECT $$; DROP TABLE orders; $$ AS text_value",
            "SELECT $tag$ x $TAG$; DELETE FROM orders; $tag$ AS s",
            "SELECT E'it\\'s; DROP' AS s",
            "SELECT E'\\\\' AS backslash",
            "SELECT 'it''s' AS s",
            "SELECT U&'d\\0061ta' AS s",
            "SELECT /* ; DELETE FROM orders; */ 1",
            "SELECT /* outer /* nested; DELETE FROM orders */ still comment */ 1",
            "SELECT 1 -- ; DELETE FROM orders",
            "SELECT 1;",
            "SELECT \"name\" FROM customers WHERE id = 1",
            "SELECT status, count(*) FROM orders GROUP BY status HAVING count(*) > 1 ORDER BY 2 DESC",
            "SELECT extract(year FROM placed_at) AS y, count(*) FROM orders GROUP BY 1",
            "SELECT substring(name FROM 1 FOR 3) FROM customers",
            "SELECT id FROM orders WHERE status IS DISTINCT FROM 'open' ORDER BY id LIMIT 3",
            "SELECT * FROM order_totals ORDER BY total DESC LIMIT 3",
            "SELECT * FROM status_counts",
            "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'",
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'",
            "SELECT generate_series(1, 3) AS n",
            "SELECT g.n FROM generate_series(1, 3) AS g(n)",
            "SELECT v.a FROM (VALUES (1, 'x'), (2, 'y')) AS v(a, b)",
            "SELECT json_build_object('id', c.id, 'name', c.name) FROM customers c ORDER BY c.id LIMIT 2",
            "SELECT count(*) FILTER (WHERE status = 'open') FROM orders",
            "SELECT customer_id, total, rank() OVER (PARTITION BY customer_id ORDER BY total DESC) FROM orders LIMIT 5",
            "SELECT id FROM orders ORDER BY id FETCH FIRST 3 ROWS ONLY",
            "SELECT now()::date, 2 * 3 AS six",
            "SELECT '{\"a\":1}'::jsonb ?? 'a' AS has_a",
            "SELECT t.\"comment\" FROM (SELECT 'x' AS \"comment\") t",
            "SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id AND c.name LIKE 'c%') LIMIT 3",
            "SELECT DISTINCT ON (customer_id) * FROM orders ORDER BY customer_id, total DESC LIMIT 3",
            "SELECT id, name FROM customers UNION SELECT id, status FROM orders ORDER BY 1 LIMIT 4",
            "SELECT lower(name) FROM customers WHERE name ILIKE '%1%' LIMIT 3",
            "SELECT * FROM customers c, LATERAL (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) n ORDER BY c.id LIMIT 2",
            "SELECT 1 AS x$a$, 'y' AS z",
            "SELECT array_agg(id ORDER BY id) FROM (SELECT id FROM orders ORDER BY id LIMIT 3) s",
            "SELECT x.customer_id FROM order_totals x WHERE x.total > 0 LIMIT 2",
            "SELECT o.status, count(*) FROM orders AS o LEFT JOIN customers AS c ON left(c.name, 1) = 'c' GROUP BY o.status",
            "SELECT b.body FROM notes b ORDER BY b.id");

    /**
     * Texts Postgres reads as one statement (a string or comment holds the ';') that pgjdbc's lexer splits: an E''
     * string right after a quote, a digit or a dollar quote, a dollar quote right after a digit, '/*' then '/'.
     */
    public static final List<String> PGJDBC_MISREADS = List.of(
            "SELECT 'a'e'\\'; DELETE FROM t; --'",
            "SELECT 1e'\\'; DELETE FROM t; --'",
            "SELECT $$a$$e'\\'; DELETE FROM t; --'",
            "SELECT E'\\'''\\'; DELETE FROM t; --'",
            "SELECT 1$b$; DELETE FROM t; $b$",
            "SELECT /*/ ; DELETE FROM t; */ 1",
            "SELECT *''*/*/; DELETE FROM t; */ 1");

    private Corpora() {}
}
