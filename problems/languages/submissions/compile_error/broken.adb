procedure Broken is
begin
   null
end Broken;
