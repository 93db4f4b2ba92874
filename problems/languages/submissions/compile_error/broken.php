<?php
echo 1 +;
