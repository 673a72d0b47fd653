package io.roboco.sandbox.inspect.sql;

/**
 * One reason a statement is refused.
 *
 * @param rule   a stable snake_case code ({@code multiple_statements}, {@code denied_column}, …), documented in docs/agents.md
 * @param reason a sentence saying what was found and what to send instead
 */
public record Violation(String rule, String reason) {
    public static final String SYNTAX = "syntax";
    public static final String TOO_LONG = "too_long";
    public static final String EMPTY = "empty";
    public static final String MULTIPLE_STATEMENTS = "multiple_statements";
    public static final String STATEMENT_KIND = "statement_kind";
    public static final String WRITE_KEYWORD = "write_keyword";
    public static final String SELECT_INTO = "select_into";
    public static final String ROW_LOCK = "row_lock";
    public static final String TABLE_COMMAND = "table_command";
    public static final String DENIED_FUNCTION = "denied_function";
    public static final String DENIED_RELATION = "denied_relation";
    public static final String EXPLAIN_ANALYZE = "explain_analyze";
    public static final String DENIED_COLUMN = "denied_column";
    public static final String STAR_PLACEMENT = "star_placement";
    public static final String WHOLE_ROW = "whole_row";
    public static final String COLUMN_ALIAS_LIST = "column_alias_list";
    public static final String PARAMETER = "parameter";
    public static final String OVER_BUDGET = "over_budget";
}
