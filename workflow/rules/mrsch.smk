# Rules for the 'mrsch' paper (mrsch.txt).
# Its issue has not landed yet: the aggregate target 'mrsch' is empty until it does.
