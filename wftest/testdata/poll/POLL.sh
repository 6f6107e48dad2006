echo "polled in $PWD" >&2
echo "<goto>DONE.md</goto>"
