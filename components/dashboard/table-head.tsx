/** A column heading; a numeric column is right-aligned, as its cells are (`dash-table__num`). */
type Column = string | { numeric: string };

/** A dashboard table's heading row. */
export function TableHead({ columns }: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === "string" ? (
            <th key={column} scope="col">
              {column}
            </th>
          ) : (
            <th key={column.numeric} scope="col" className="dash-table__num">
              {column.numeric}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
