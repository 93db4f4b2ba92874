program Broken;
begin
  WriteLn(1 +)
end.
