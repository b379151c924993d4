/** An object's properties as a two-column table, keys sorted, values as JSON when they are not text. */
export function PropertiesTable({ properties }: { properties: Record<string, unknown> }) {
  const keys = Object.keys(properties).sort();
  if (keys.length === 0) return <p className="muted">No properties.</p>;
  return (
    <table className="props">
      <tbody>
        {keys.map((key) => (
          <tr key={key}>
            <td>{key}</td>
            <td>{typeof properties[key] === 'string' ? (properties[key] as string) : JSON.stringify(properties[key])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
