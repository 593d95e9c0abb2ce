package approval

import (
	"fmt"
	"testing"
)

// BenchmarkLedgerUpdate is one resolve on a ledger of 200 rows, each with a
// member another tool wrote, as update does it without the file: parse,
// set one row's status, encode.
func BenchmarkLedgerUpdate(b *testing.B) {
	d := &ledgerDoc{display: "ledger", top: newObject()}
	_ = d.top.set("schemaVersion", SchemaVersion)
	_ = d.top.set("taskKey", "dev-1")
	for i := range 200 {
		r := exampleRow()
		r.ClarificationID = fmt.Sprintf("C-%03d", i+1)
		if err := d.appendRow(r); err != nil {
			b.Fatal(err)
		}
		d.rowObjs[i].setRaw("x-audit", []byte(`{"by":"okstra","n":[1,2]}`))
	}
	data, err := d.encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		d, err := parseLedger(data, "ledger")
		if err != nil {
			b.Fatal(err)
		}
		if err := d.setMember(i%200, "status", StatusResolved); err != nil {
			b.Fatal(err)
		}
		i++
		if _, err := d.encode(); err != nil {
			b.Fatal(err)
		}
	}
}
